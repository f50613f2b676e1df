"""Plain text helpers the rules, style wishes, dates and secret masking share."""
