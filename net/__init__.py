"""HTTP for the bot's two servers, the Bot API and the model's: a small HTTP/1.1 client (net/connections.py) over
a parser of responses (net/http1.py)."""
