"""The conversation service: one turn from the user's words to the model's reply."""
