// C entry points around FastNoiseLite's single header (Cpp/FastNoiseLite.h), for scripts/bench.py (ctypes).
// Built by scripts/build_peers.py with -O3 -march=native; a measurement peer only, not part of noise_core.
// Every function runs on the calling thread: one thread, as FastNoise2's fnGen* calls.

#include <cstring>

#include "FastNoiseLite.h"

namespace
{
    struct Name
    {
        const char* name;
        int value;
    };

    const Name kNoiseTypes[] = {
        {"OpenSimplex2", FastNoiseLite::NoiseType_OpenSimplex2},
        {"OpenSimplex2S", FastNoiseLite::NoiseType_OpenSimplex2S},
        {"Cellular", FastNoiseLite::NoiseType_Cellular},
        {"Perlin", FastNoiseLite::NoiseType_Perlin},
        {"ValueCubic", FastNoiseLite::NoiseType_ValueCubic},
        {"Value", FastNoiseLite::NoiseType_Value},
    };

    const Name kCellularReturns[] = {
        {"CellValue", FastNoiseLite::CellularReturnType_CellValue},
        {"Distance", FastNoiseLite::CellularReturnType_Distance},
        {"Distance2", FastNoiseLite::CellularReturnType_Distance2},
        {"Distance2Add", FastNoiseLite::CellularReturnType_Distance2Add},
        {"Distance2Sub", FastNoiseLite::CellularReturnType_Distance2Sub},
        {"Distance2Mul", FastNoiseLite::CellularReturnType_Distance2Mul},
        {"Distance2Div", FastNoiseLite::CellularReturnType_Distance2Div},
    };

    template <size_t N>
    int Lookup( const Name ( &names )[N], const char* name )
    {
        for( const Name& entry : names )
        {
            if( std::strcmp( entry.name, name ) == 0 )
            {
                return entry.value;
            }
        }
        return -1;
    }
}

extern "C"
{
    // A configured FastNoiseLite, or NULL when noise_type or cellular_return is not one of the names above
    // (cellular_return may be NULL for non-cellular noise). octaves > 1 selects FBm (lacunarity 2, gain 0.5);
    // cellular noise uses the Euclidean distance and jitter 1.
    void* fnl_new( const char* noise_type, const char* cellular_return, float frequency, int octaves, int seed )
    {
        int noise = Lookup( kNoiseTypes, noise_type );
        int cellular = cellular_return ? Lookup( kCellularReturns, cellular_return ) : 0;
        if( noise < 0 || cellular < 0 )
        {
            return nullptr;
        }
        FastNoiseLite* fnl = new FastNoiseLite( seed );
        fnl->SetNoiseType( static_cast<FastNoiseLite::NoiseType>( noise ) );
        fnl->SetFrequency( frequency );
        if( octaves > 1 )
        {
            fnl->SetFractalType( FastNoiseLite::FractalType_FBm );
            fnl->SetFractalOctaves( octaves );
            fnl->SetFractalLacunarity( 2.0f );
            fnl->SetFractalGain( 0.5f );
        }
        else
        {
            fnl->SetFractalType( FastNoiseLite::FractalType_None );
        }
        if( cellular_return )
        {
            fnl->SetCellularDistanceFunction( FastNoiseLite::CellularDistanceFunction_Euclidean );
            fnl->SetCellularReturnType( static_cast<FastNoiseLite::CellularReturnType>( cellular ) );
            fnl->SetCellularJitter( 1.0f );
        }
        return fnl;
    }

    void fnl_delete( void* fnl )
    {
        delete static_cast<FastNoiseLite*>( fnl );
    }

    void fnl_gen_2d( const void* fnl, int count, const float* x, const float* y, float* out )
    {
        const FastNoiseLite& noise = *static_cast<const FastNoiseLite*>( fnl );
        for( int i = 0; i < count; i++ )
        {
            out[i] = noise.GetNoise( x[i], y[i] );
        }
    }

    void fnl_gen_3d( const void* fnl, int count, const float* x, const float* y, const float* z, float* out )
    {
        const FastNoiseLite& noise = *static_cast<const FastNoiseLite*>( fnl );
        for( int i = 0; i < count; i++ )
        {
            out[i] = noise.GetNoise( x[i], y[i], z[i] );
        }
    }

    // out[r * width + c] = noise at (x0 + c * step_x, y0 + r * step_y), as fnGenUniformGrid2D lays it out.
    void fnl_grid_2d( const void* fnl, int width, int height, float x0, float y0, float step_x, float step_y,
                      float* out )
    {
        const FastNoiseLite& noise = *static_cast<const FastNoiseLite*>( fnl );
        for( int r = 0; r < height; r++ )
        {
            float y = y0 + r * step_y;
            for( int c = 0; c < width; c++ )
            {
                out[r * width + c] = noise.GetNoise( x0 + c * step_x, y );
            }
        }
    }

    // A FastNoiseLite set up as a domain warp (DomainWarp only): warp_type "OpenSimplex2", "OpenSimplex2Reduced"
    // or "BasicGrid", amplitude and frequency in input units, octaves > 1 selects the fractal warp
    // (progressive != 0: DomainWarpProgressive, else DomainWarpIndependent; lacunarity 2, gain 0.5). NULL for
    // an unknown warp_type.
    void* fnl_new_warp( const char* warp_type, float amplitude, float frequency, int octaves, int progressive,
                        int seed )
    {
        const Name kWarpTypes[] = {
            {"OpenSimplex2", FastNoiseLite::DomainWarpType_OpenSimplex2},
            {"OpenSimplex2Reduced", FastNoiseLite::DomainWarpType_OpenSimplex2Reduced},
            {"BasicGrid", FastNoiseLite::DomainWarpType_BasicGrid},
        };
        int type = Lookup( kWarpTypes, warp_type );
        if( type < 0 )
        {
            return nullptr;
        }
        FastNoiseLite* fnl = new FastNoiseLite( seed );
        fnl->SetDomainWarpType( static_cast<FastNoiseLite::DomainWarpType>( type ) );
        fnl->SetDomainWarpAmp( amplitude );
        fnl->SetFrequency( frequency );
        if( octaves > 1 )
        {
            fnl->SetFractalType( progressive ? FastNoiseLite::FractalType_DomainWarpProgressive
                                             : FastNoiseLite::FractalType_DomainWarpIndependent );
            fnl->SetFractalOctaves( octaves );
            fnl->SetFractalLacunarity( 2.0f );
            fnl->SetFractalGain( 0.5f );
        }
        else
        {
            fnl->SetFractalType( FastNoiseLite::FractalType_None );
        }
        return fnl;
    }

    // out[i] = noise at the point (x[i], y[i]) moved by the warp: DomainWarp, then GetNoise, per point.
    void fnl_warp_gen_2d( const void* warp, const void* fnl, int count, const float* x, const float* y, float* out )
    {
        const FastNoiseLite& warper = *static_cast<const FastNoiseLite*>( warp );
        const FastNoiseLite& noise = *static_cast<const FastNoiseLite*>( fnl );
        for( int i = 0; i < count; i++ )
        {
            float wx = x[i], wy = y[i];
            warper.DomainWarp( wx, wy );
            out[i] = noise.GetNoise( wx, wy );
        }
    }
}
