"""Memories brought in from elsewhere: the files an import reads (the reference bot's pickle, this bot's own /export,
ChatGPT's conversations.json), read safely and turned into plain records; the gates and the writing are services/'."""
