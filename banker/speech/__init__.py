"""Speech stages behind small Protocols: audio in/out, buttons, voice activity, recognition, voice.

Receives and returns plain audio (numpy int16 arrays), text and small dataclasses; imports
nothing from the rules core or the journal.
"""
