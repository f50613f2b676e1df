"""Regular expressions and word lists that memory/secrets/masking.py finds labelled secrets with: passwords,
PINs and codes, card security codes, identity numbers, keys named as such.

Every pattern stays linear on hostile input (tests/test_hostile_input.py sends 50,000 characters): values are
taken possessively or have a bounded length, and the few words allowed between a secret's name and its
value are split by whitespace they cannot contain, so no text can be read two ways.
"""

from __future__ import annotations

import re

from memory.secrets.labels import CODE_FORMS_RU, alternation

# A word that may stand between the name of a secret and its value ("пароль от почты", "pin for my card").
WORD = r"[^\W\d_](?:[\w'.]|-(?=\w))*+"
# "(?<![\[\w])" keeps the words inside our own placeholders ("[code hidden]") from naming a secret.
NAME_START = r"(?<![\[\w])"
NOT_A_PLACEHOLDER = r"(?!\[[^\]\n]{0,30} hidden\])"
# What may stand between a number's name and the number: "is", "это", a colon, a dash, "#".
NUMBER_SEP = r"(?:\s*(?:[:=—–#]|-(?=\s)|\b(?:is|was|are|это)\b))*+"
# A code's name may also take "'s": "my pin's 4481", "door code's 2580".
CODE_SEP = r"(?:\s*(?:[:=—–#]|-(?=\s)|\b(?:is|was|are|это)\b)|['’]s\b)*+"
NUMBER_END = r"(?![0-9]|[ -][0-9]|[.,:/][0-9])"

# ----- keys named as such (keys known by their shape are in keys.py) ----------------------------------------------

# A long hex or base64 blob after a word that names it as a key ("token: 9f8e...", "ключ — abc123...").
QUALIFIERS = r"(?:\s+[^\W\d_]+){0,3}?"
NAMED_BLOB = re.compile(
    rf"(?<!\[)\b(?:token|key|secret|ключ\w*|токен\w*|секрет\w*)\b{QUALIFIERS}(?:\s*(?:\bis\b|[:=—–-]))*+\s*"
    r"(?P<value>[A-Za-z0-9+/_=-]{16,})",
    re.IGNORECASE,
)
# A shorter value after an unmistakable name ("api key: k3y9Xa", "токен бота — 12ab34cd", "access token is
# Zx81qq"): any length from 6, with a letter and a digit, when it ends its clause ("api key: version2 of the
# plan" and "токены закончились: 500000" are talk).
STRONG_KEY_NAME = (
    r"(?:api|access|secret|private|auth|bearer|bot)[ _-]?(?:key|token)s?|tokens?|токен\w*|api[ -]?ключ\w*"
    r"|ключ\w*\s+(?:api|доступа)|секретн\w+\s+ключ\w*"
)
NAMED_SHORT_KEY = re.compile(
    rf"(?<!\[)\b(?:{STRONG_KEY_NAME})\b{QUALIFIERS}\s*(?:\bis\b|[:=—–]|-(?=\s))\s*"
    r"(?P<value>(?=[^\s,;]*[0-9])(?=[^\s,;]*[A-Za-z])[A-Za-z0-9+/_=.-]{6,}?)(?=[.!?]?(?:\s*(?:[,;!?)]|$)|\s+(?:and|but|и|а|но)\b))",
    re.IGNORECASE,
)
# ----- identity numbers ------------------------------------------------------------------------------------------

SNILS_NAMED = re.compile(
    rf"{NAME_START}(?:снилс\w*|snils)\b(?:\s+{WORD}){{0,3}}?{NUMBER_SEP}\s*(?<!\w)"
    rf"(?P<value>[0-9]{{3}}[ -]?[0-9]{{3}}[ -]?[0-9]{{3}}[ -]?[0-9]{{2}}){NUMBER_END}",
    re.IGNORECASE,
)
# Without its name a SNILS is taken only in its printed shape, and only when its check digits agree.
SNILS_SHAPE = re.compile(rf"(?<![\w+-])[0-9]{{3}}-[0-9]{{3}}-[0-9]{{3}}[ -][0-9]{{2}}{NUMBER_END}")
SSN_NAMED = re.compile(
    rf"{NAME_START}(?:ssn|social)\b(?:\s+{WORD}){{0,3}}?{NUMBER_SEP}\s*(?<!\w)"
    rf"(?P<value>[0-9]{{3}}[ -]?[0-9]{{2}}[ -]?[0-9]{{4}}){NUMBER_END}",
    re.IGNORECASE,
)
# The dashed shape alone, minus what the SSA never issues (area 000, 666, 9xx; group 00; serial 0000).
SSN_SHAPE = re.compile(rf"(?<![\w+-])(?!000|666|9)[0-9]{{3}}-(?!00)[0-9]{{2}}-(?!0000)[0-9]{{4}}{NUMBER_END}")
# A Russian passport: series of four digits (often split 2 + 2) and a six-digit number, or 2 + 7 for the
# foreign one; elsewhere a letter or two and digits, or nine digits.
RU_PASSPORT = r"[0-9]{2} ?[0-9]{2}(?:[\s,]{0,3}|[\s,]?[-–][\s,]?)(?:(?:номер|№|no\.?)\s*)?[0-9]{6}|[0-9]{2} ?[0-9]{7}"
OTHER_PASSPORT = r"(?-i:[A-Z]{1,2}[0-9]{6,8}|(?=[A-Z]*[0-9][A-Z]*[0-9])[A-Z0-9]{8,9})|[0-9]{9}"
PASSPORT_NAMED = re.compile(
    rf"{NAME_START}(?:(?:загран)?паспорт\w*|загран\w*|passports?)\b(?:\s+{WORD}){{0,4}}?{NUMBER_SEP}\s*(?<!\w)"
    rf"(?P<value>{RU_PASSPORT}|{OTHER_PASSPORT})(?!\w|[ -][0-9])",
    re.IGNORECASE,
)
PASSPORT_SERIES = re.compile(
    rf"{NAME_START}серия\s*(?P<value>[0-9]{{2}} ?[0-9]{{2}}[\s,]{{0,3}}(?:номер|№)\s*[0-9]{{6}})(?![0-9])",
    re.IGNORECASE,
)

# ----- card security codes ---------------------------------------------------------------------------------------

CARD_BACK = r"(?:на\s+обороте|сзади|на\s+обратной\s+стороне|с\s+обратной\s+стороны|on\s+the\s+back)"
CVV_NAME = (
    r"(?:cvv2?|cvc2?|cvn|csc|cid|свв|цвв|свс|цвц|security\s+code|код\s+безопасности|card\s+verification\s+\w+"
    rf"|(?:цифр\w*|код|digits|numbers|code)\s+{CARD_BACK}|{CARD_BACK}\s+(?:карт\w*|of\s+(?:the|my|your)\s+card))"
)
CVV_NAMED = re.compile(
    rf"{NAME_START}{CVV_NAME}\b(?:\s+{WORD}){{0,3}}?{NUMBER_SEP}\s*(?<!\w)(?P<value>[0-9]{{3,4}}){NUMBER_END}",
    re.IGNORECASE,
)

# ----- passwords ---------------------------------------------------------------------------------------------------

# password(s), with the common slips (pasword, passwrd, passwrod, passwd); пароль in every case and the slip
# "пороль"; not "парольный" (an adjective: "парольная политика").
PASSWORD_NAME = (
    r"(?:pas{1,2}w(?:or|ro|r)?ds?|passcodes?|passphrases?|pwd|парол(?!ьн)\w*|порол(?:ь|я|ем|ю|и)(?!\w)"
    r"|(?:кодов|секретн|контрольн)\w*\s+слов\w*|codewords?|secret\s+words?)"  # a bank's code word is one too
)
# Dictionary passwords without a digit, taken after the word "password" even with no separator.
COMMON_PASSWORDS = frozenset(
    "qwerty qwertyuiop asdfgh asdfghjkl zxcvbn zxcvbnm qazwsx letmein iloveyou йцукен йцукенг".split()
)
COMMON_ALTERNATION = "|".join(sorted(COMMON_PASSWORDS, key=len, reverse=True))
# Separators after the name: a colon, an equals sign, a dash, "is", "это", "стоит" ("паролем у меня стоит X"), "'s"
# ("my password's hunter2"),
# "? it's" ("the router password? it's Netgear42").
PASSWORD_SEP = (
    r"(?:\s*(?:[:=—–]|-(?=\s)|,(?=\s*(?:это|is)\b)|\b(?:is|was|are|это|будет|стоит)\b|\?\s*it['’]?s\b|\?)"
    r"|['’]s\b)++"
)
# What follows "password is" or "пароль:" in talk about passwords rather than in a password.
PASSWORD_STOPWORDS = frozenset(
    "a an the my your his her our their its it this that these those too very so not no same different wrong "
    "incorrect invalid weak strong long short simple easy hard expired changed saved stored written leaked stolen "
    "hacked compromised reset required needed case-sensitive on in at for to of with from by what how where "
    "something nothing still now just like also always never probably really somewhere being about and or but "
    "set correct right unknown blank empty all ask check see look call text find get "
    "не нет никакой какой такой тот та то этот эта мой моя твой твоя его её их наш там тут здесь где как что "
    "очень слишком простой сложный длинный короткий неверный неправильный другой другие разные разный новый старый "
    "один одинаковый одинаковые "
    "везде всегда это и а но в на у к с по из за для от до ещё уже тоже вроде забыл забыла забыли сохранен "
    "сохранён записан "
    # what a password is made of, said instead of it: "пароль — дата рождения мамы", "password is name of my dog"
    "дата дату имя фамилия день год номер название кличка name birthday date".split()
)
# A stop word is refused inside the pattern, so that a longer reading can still be found: in "passwords for
# both accounts are the same: Tiger_77" the value is not "the" but what follows the colon.
STOPWORD_ALTERNATION = "|".join(sorted((re.escape(word) for word in PASSWORD_STOPWORDS), key=len, reverse=True))
# Words between the separator and the value: "my password's still hunter2", "паролем будет слово солнышко",
# "пароль: вроде Kroshka_2017".
# "пароль от почты — он такой: X", "пароль: она теперь X": the password named again by a pronoun.
VALUE_LEAD = (r"(?:still|now|currently|probably|maybe|the\s+word|теперь|сейчас|слово|вроде|кажется"
              r"|(?:он|она)(?:\s+(?:такой|такая|вот|теперь|сейчас|просто))?\s*:?|(?:он|она)\s+[^\W\d_]+\s*:)")
# "password (for my email) is VALUE", "пароль от почты: VALUE".
PASSWORD_STATED = re.compile(
    rf"{NAME_START}(?P<name>{PASSWORD_NAME}|pw|pass|пасс)\b(?P<qual>(?:,?\s+(?:{WORD}|[0-9]+[^\W\d_]\w*)){{0,8}}?)"
    rf"(?P<sep>{PASSWORD_SEP})\s*(?:{VALUE_LEAD}\s+)?"
    rf"{NOT_A_PLACEHOLDER}(?!(?:{STOPWORD_ALTERNATION})(?![\w-]))(?P<value>[^\s:=—–\[]\S*)",
    re.IGNORECASE,
)
# "пароль от почты qwerty123", "my gmail password hunter2": no separator, so the value has to look like one.
# An aside between the name and the value may stand between commas: "мой пароль, если что, Zebra!2024", "пароль
# менял вчера, теперь он Vesna2025!!"; "пасс" is Russian slang for a password ("пасс от стима lolkek228").
PASSWORD_BARE = re.compile(
    rf"{NAME_START}(?P<name>{PASSWORD_NAME}|пасс)\b(?P<qual>(?:,?\s+{WORD}){{0,4}}?),?\s+"
    rf"(?P<value>(?=[^\s\[]*[0-9!@#$%^&*_+=?~]|(?:{COMMON_ALTERNATION})(?![^\s.,;!?]))[^\s\[]{{4,}}+)",
    re.IGNORECASE,
)
# "логин ivan пасс 7k2", "login: anna, pass 1q2w", "user admin pwd x9": after a login, a value with a digit or a
# symbol, or any after a separator, is the password; not a stop word or a Cyrillic word ("логин petrov, паролем
# служит …" goes on to the value), nor a bare word ("login admin, password forgotten").
LOGIN_PAIR = re.compile(
    rf"{NAME_START}(?:логин\w*|login|user(?:name)?|юзер\w*|учётк\w*|учетк\w*)\s*[:=—–-]?\s*[^\s,;:\[]{{1,64}}[,;]?\s+"
    rf"(?:{PASSWORD_NAME}|pw|pass|пасс)\b(?P<sep>\s*(?:[:=—–]|-(?=\s)|\b(?:is|это)\b)?)\s*{NOT_A_PLACEHOLDER}"
    rf"(?!(?:{STOPWORD_ALTERNATION}|is|это)(?![\w-]))(?P<value>(?=[^\s\[]*[0-9A-Za-z!@#$%^&*_+=?~])[^\s\[]{{2,64}}+)",
    re.IGNORECASE,
)
# "wifi pw sunflower77", "пароль от вайфая Romashka": a password named by the network it opens. With a Russian
# name, a Latin word after it is taken too: Russian speakers write passwords in Latin letters.
WIFI = r"(?:wi-?fi|wlan|вай-?фа\w*|вайфа\w*|wi-?fi-?сет\w*)"
WIFI_PASSWORD = re.compile(
    rf"{NAME_START}(?:{WIFI}\s+(?P<short>pw|pwd|pass|пасс|key|ключ)|(?P<ru>парол\w*)\s+(?:от|для|к)\s+{WIFI})\b"
    rf"(?:\s+[^\s:\[]{{1,40}}:)?"  # the network's name before a colon: "пароль от вайфая Home_5G: …"
    rf"\s+(?P<value>[^\s\[]{{4,64}}+)",
    re.IGNORECASE,
)
LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z0-9_!@#$%^&*+=?~.-]{3,63}")
# Nouns before "pass" that make it a ticket or a mountain road: "boarding pass: 12B", "ski-pass", "bus pass".
NOT_PASSWORD_BEFORE_PASS = frozenset(
    "boarding ski bus season day week weekly month monthly annual year yearly hall free press backstage vip access "
    "all-access mountain guest visitor museum metro train rail transit gym festival event fast park parking travel "
    "photo media staff hiking backstage ски ски-пасс".split()
)
# "hunter2 is my password", "qwerty123 — это мой пароль от почты", "Jenny123 — that's the password".
PASSWORD_BEFORE = re.compile(
    rf"(?<![^\s(«\"'])(?P<value>[^\s,;:()«»\"'\[\]]{{4,64}}+)"
    r"(?P<conn>\s*(?:(?:[—–:,]|-(?=\s)|\b(?:is|was|это|as|that['’]s|that\s+is)\b)\s*){0,2}"
    r"(?:(?:это|мой|моя|мои|наш|my|the|our|new|новый)\s+){0,2})"
    rf"(?P<name>{PASSWORD_NAME})\b",
    re.IGNORECASE,
)
# A colon, equals sign or dash among the separators ("пароль от почты — X"), against a bare "is".
HARD_SEP = re.compile(r"[:=—–-]")
# "пароль — это набор символов" defines the word rather than giving one.
DEFINITION_SEP = re.compile(r"[—–-]\s*это", re.IGNORECASE)
# Words that may open what stands between "password" and "is" ("password for my email is", "пароль у меня
# это"): prepositions and a few adverbs. "the password policy at work is annoying" opens with a noun.
PASSWORD_LEADS = frozenset(
    "for to of at on in from with now still currently also again "
    "от для к ко на в во у с со из по при теперь сейчас тогда везде всегда обычно тоже снова".split()
)
# Nouns that make "password" a modifier ("password manager like 1Password").
PASSWORD_COMPOUNDS = frozenset(
    "manager managers policy policies reset resets generator generators requirements requirement rules rule "
    "strength hint hints field length prompt protected protection recovery app vault list expiry expiration "
    "history attempts screen менеджер менеджера политика требования".split()
)

# ----- what a value is not ------------------------------------------------------------------------------------------

YEAR = re.compile(r"(?:19|20)[0-9]{2}")
# Dates, times, prices, phone pieces: only digits and their punctuation.
NUMBER_SHAPE = re.compile(r"[0-9.,:/+()\-]+")
# "24h", "256gb", "3rd", "10am": a number with its unit.
UNIT_SHAPE = re.compile(
    r"[0-9]+(?:st|nd|rd|th|am|pm|h|hrs|k|kb|gb|mb|tb|kg|km|cm|mm|ml|p|px|x|fps|mp|г|кг|км|см|мм|гб|мб|ч|м|мин|р|руб|к)"
)
EMAIL_OR_URL = re.compile(r"@.*\.|://|^www\.", re.IGNORECASE)
# A unit after a bare number: "8 символов", "12 characters", "90 days".
UNIT_AFTER = re.compile(
    r"\s*(?:%|₽|\$|€|символ|знак|цифр|букв|раз|дн|день|дня|лет|год|час|минут|секунд|недел|месяц|попыт|штук|"
    r"человек|руб|char|digit|letter|time|day|year|hour|min|sec|week|month|attempt|tries|word|people|dollar|"
    r"usd|eur|buck)",
    re.IGNORECASE,
)

# ----- one-time codes and PINs --------------------------------------------------------------------------------------

# The Russian names in every case come from the word toolkit (labels.py): "кодом", "коде", "пин-кодом", "пинам".
CODE_NAME = (
    rf"(?:pin-?codes?|pincodes?|pins?|codes?|otp|sms|combinations?|{alternation(CODE_FORMS_RU)}|пин-?код\w*"
    r"|смс(?:к\w*)?)"
)
# The code must stand alone: "код 1234 5678" is more likely part of a longer number. Digits one by one, with dashes
# or spaces, are one code: "PIN: 4 5 6 7", "код 1-9-8-4".
CODE_NAMED = re.compile(
    rf"{NAME_START}(?P<name>{CODE_NAME})\b(?P<qual>(?:,?\s+{WORD}){{0,5}}?,?)(?P<sep>{CODE_SEP})\s*(?<!\w)"
    rf"(?P<value>[0-9]{{4,8}}|[0-9](?:-[0-9]){{3,7}}|[0-9](?: [0-9]){{3,7}}|[0-9]{{3}}[ -][0-9]{{3}}){NUMBER_END}",
    re.IGNORECASE,
)
# "4829 — код из смс", "2580 — мой пин от карты": a separator is required.
CODE_BEFORE = re.compile(
    r"(?<![\w+\-.,:/])(?<![0-9] )(?P<value>[0-9]{4,8})"
    r"\s*(?:[:—–]|-(?=\s)|\b(?:is|это)\b)\s*(?:(?:это|мой|моя|ваш|твой|my|your|the)\s+){0,2}"
    rf"(?P<name>{CODE_NAME})\b(?P<qual>(?:\s+{WORD})?)",
    re.IGNORECASE,
)
# Door and intercom codes: "код домофона 45К1234", "код от подъезда: 12#34", "gate code is *2580"; a closing "#"
# stays, as it always has ("1234#" -> "[code hidden]#").
DOOR_NAME = (
    r"(?:код\w*\s+(?:от\s+|на\s+)?(?:домофон\w*|подъезд\w*|двер\w*|калитк\w*|ворот\w*|замк\w*|сейф\w*)"
    r"|домофон\w*|(?:door|gate|intercom|entry|buzzer|safe|lock|alarm)\s*codes?)"
)
DOOR_CODE = re.compile(
    rf"{NAME_START}{DOOR_NAME}(?:\s+{WORD}){{0,3}}?{CODE_SEP}\s*(?<!\w)"
    r"(?P<value>[0-9](?:-[0-9]){3,9}(?![\w-])"  # "1-9-8-4"
    r"|(?=(?:[^\s0-9]*[0-9]){3})[#*]?[0-9KkКкBbВв](?:[0-9KkКкBbВв#*]{0,10}[0-9KkКкBbВв])?+)(?![\w-])",
    re.IGNORECASE,
)
# Backup and recovery codes, listed after their name: "backup codes for google: 8351 2047, 5520 9913".
BACKUP_CODES = re.compile(
    rf"{NAME_START}(?:backup|recovery|резервн\w*|запасн\w*|одноразов\w*)\s+(?:codes|коды|кодов)\b[^0-9\n]{{0,40}}"
    r"(?P<value>[0-9]{3,5}[ -]?[0-9]{3,5}(?:\s*[,;]?\s*[0-9]{3,5}[ -]?[0-9]{3,5})*)(?![0-9])",
    re.IGNORECASE,
)
# Google's own message: "G-482913 is your Google verification code".
GOOGLE_CODE = re.compile(r"(?<![\w-])G-(?P<value>[0-9]{6})(?=\s+is\s+your\b)")
# Codes that are not secrets: the word right before "code" ("zip code", "error code") or after it ("код ошибки").
NOT_SECRET_BEFORE_CODE = frozenset(
    "zip postal post area country dialing dial error exit status return http response source promo discount "
    "coupon voucher gift product item tracking order qr bar morse sort dress region tax iso".split()
)
NOT_SECRET_AFTER_CODE = frozenset(
    "города региона страны ошибки товара заказа подразделения продукта ответа статуса выхода модели валюты "
    "review reviews editor base snippet block line lines example quality coverage style of name".split()
)
WORD_BEFORE = re.compile(r"([^\W\d_]+)\W*$")
