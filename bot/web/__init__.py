"""The bot's HTTP side: one aiohttp server for the webhook, the Mini App and /healthz."""
