"""The engine's own exception, so callers can tell bad game data from bugs."""


class EngineError(ValueError):
    """Raised for input the engine refuses: malformed boards, tampered saves, bad directions."""
