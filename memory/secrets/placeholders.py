"""The placeholders that stand where a secret was, one per family; masking.py offers them to the rest of the bot."""

CARD = "[card number hidden]"
IBAN = "[IBAN hidden]"
API_KEY = "[API key hidden]"  # also private key blocks and unlabelled random tokens
PASSWORD = "[password hidden]"  # also the password part of a URL
CODE = "[code hidden]"  # one-time codes, door codes and PINs
CVV = "[CVV hidden]"
PASSPORT = "[passport number hidden]"
SNILS = "[SNILS hidden]"
SSN = "[SSN hidden]"
SEED = "[seed phrase hidden]"
INN = "[INN hidden]"  # a person's: an organisation's is public
OGRNIP = "[OGRNIP hidden]"  # an individual entrepreneur's registration number
ANSWER = "[security answer hidden]"  # the answer to a bank's security question
PLACEHOLDERS = (CARD, IBAN, API_KEY, PASSWORD, CODE, CVV, PASSPORT, SNILS, SSN, SEED, INN, OGRNIP, ANSWER)
