"""Edition data: ``config/editions/<id>.yaml`` in, a validated frozen ``Edition`` out.

A broken file raises ``EditionError`` carrying every problem with its key path.
"""

from banker.editions.loader import EditionError, available_editions, load_edition
from banker.editions.model import ChanceCard, Edition, OptionSpec, Street, Token

__all__ = [
    "ChanceCard",
    "Edition",
    "EditionError",
    "OptionSpec",
    "Street",
    "Token",
    "available_editions",
    "load_edition",
]
