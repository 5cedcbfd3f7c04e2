"""Text -> intent: the command templates and what reads them.

Receives text (typed, or a recogniser's words) and an edition; returns what was meant
(``matcher.Recognized`` with its intent and slots, ``Ambiguous``, or ``NotRecognized``).
``templates`` loads ``grammars/commands.yaml``; ``syntax`` parses one template; ``walk`` is the
one walker every reader of a template uses (matcher carriers, JSGF, automata, sampling);
``numbers`` holds the spoken-number rules; ``context`` reads a Picovoice Rhino context.
Pure: no audio, no game state.
"""
