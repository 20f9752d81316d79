"""Blender tests run the ``bpy`` module in a throw-away user folder, never the user's own.

``BLENDER_USER_RESOURCES`` is read once, when ``bpy`` is first imported, so it is set here,
before any test module imports ``bpy``. Subprocesses started by the tests inherit it.
"""

from __future__ import annotations

import atexit
import os
import shutil
import tempfile

_USER_RESOURCES = tempfile.mkdtemp(prefix="noisewright-blender-user-")
os.environ["BLENDER_USER_RESOURCES"] = _USER_RESOURCES
atexit.register(shutil.rmtree, _USER_RESOURCES, ignore_errors=True)
