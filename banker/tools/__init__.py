"""Command implementations that wire several packages together (say, transcribe, bench)."""
