"""Front ends: keyboard play and transcript replay (the voice front end is in ``speech``)."""
