"""Pure rendering: engine views + a translator -> Screens or text. No Telegram, no storage.

Group screens are built from the public view only, so nothing private can reach a group.
"""
