"""Use cases: one function per thing a player or admin does. No Telegram, no SQL here."""
