"""The interpreter: between what players say and the ledger.

Receives presses and utterances (typed text, transcript lines, or a recogniser's ``Heard``
with its confidence) from the front ends, and the clock's ticks. Returns nothing directly:
it decides with the pure rules core, writes each transaction to the journal before
announcing it, and says Mr. Monopoly's lines through the session's ``on_say``.
``Session.understand`` tells what an utterance would be (accept, confirm or reject, a
``Hearing``) and changes nothing; ``hear``, ``press`` and ``command`` act.
"""
