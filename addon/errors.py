"""The one error type of the add-on: something the user must fix."""


class UserError(Exception):
    """Something the user must fix (bad settings or context); operators report it and cancel."""
