"""Speech stages behind small Protocols: audio in/out, buttons, voice activity, recognition, voice.

Recognition receives one utterance (16 kHz mono int16) and what the banker waits for, and
returns text with a confidence (``protocols.Recognizer`` -> ``protocols.Heard``); its grammars are
compiled from ``grammars/commands.yaml`` (``grammar``), one adapter per engine
(``pocketsphinx_asr``, ``vosk_asr``), chosen from the settings by ``engine``.

Receives and returns plain audio (numpy int16 arrays), text and small dataclasses; imports
nothing from the rules core or the journal.
"""
