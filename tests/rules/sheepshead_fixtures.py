"""Recorded Sheepshead hands for exact situations: an explicit deck (top first, dealt as in
:mod:`server.rules.sheepshead`) and the action log, as ``seat action`` entries joined by
``|``. Found by a seeded random search for each situation; the tests replay every hand and
check its situation and its payments from the cards, not from these comments."""

from __future__ import annotations

# name: (dealer, deck, log)
HANDS: dict[str, tuple[int, str, str]] = {
    "partner_win_schwarz": (
        1,
        "QH 7C TS KD 9H 7H 7S 8S JD JS QD 9S AH KC QC AS "
        "JC 9C TH 8D 7D AD KH TC 9D 8H 8C AC KS JH TD QS",
        "2 pass|3 pick|3 bury 7S 9S|3 call AS|2 play 9H|3 play TD|4 play AH|"
        "0 play KH|1 play 8H|3 play JS|4 play QC|0 play AD|1 play 9D|2 play QH|"
        "4 play JC|0 play 8D|1 play JH|2 play KD|3 play JD|4 play 9C|0 play TC|"
        "1 play 8C|2 play 7C|3 play QD|3 play QS|4 play KC|0 play 7D|1 play KS|"
        "2 play TS|3 play 8S|4 play AS|0 play TH|1 play AC|2 play 7H",
    ),
    "alone_win_schwarz": (
        0,
        "KH 8D KC QD 9D 7H QS TS AC QH QC 9C 8C JD AS TC "
        "KD KS 8H 9H JH 7C TD 7S AD TH 8S JC 7D AH JS 9S",
        "1 pass|2 pick|2 bury 9S TS|2 alone|1 play 7H|2 play JS|3 play TC|"
        "4 play 8H|0 play AH|2 play QC|3 play KD|4 play JH|0 play JC|1 play QD|"
        "2 play AC|3 play 8C|4 play 7C|0 play 8S|1 play KC|2 play QH|3 play JD|"
        "4 play TD|0 play 7D|1 play 9D|2 play QS|3 play AS|4 play 9H|0 play AD|"
        "1 play 8D|2 play 9C|3 play KS|4 play 7S|0 play TH|1 play KH",
    ),
    "partner_win_schneider": (
        2,
        "QH KS JH 8C 7C 7S 9D TD JD 8S 9C JC 8D KH QD 7D "
        "KC JS TH 7H TS TC AH AC 9H KD AS QS 8H QC 9S AD",
        "3 pick|3 bury 8C KS|3 call AS|3 play 7S|4 play 8S|0 play 7D|1 play TS|"
        "2 play AS|0 play KH|1 play AH|2 play 9H|3 play JH|4 play 9D|3 play 7C|"
        "4 play 9C|0 play KC|1 play AC|2 play QS|2 play KD|3 play QH|4 play TD|"
        "0 play JS|1 play TC|3 play 9S|4 play JD|0 play 8D|1 play 7H|2 play 8H|"
        "4 play JC|0 play QD|1 play TH|2 play QC|3 play AD",
    ),
    "alone_win_schneider": (
        4,
        "8D 8C KS 7S AH JC JD TC 9D QH QS QC AD KH 7H TH "
        "8S JH QD KC 8H 7D AS TS KD 9H TD 9C JS 7C 9S AC",
        "0 pass|1 pick|1 bury 9S AC|1 alone|0 play AH|1 play JD|2 play KH|"
        "3 play 8H|4 play 9H|1 play QH|2 play JH|3 play 7D|4 play TD|0 play 8D|"
        "1 play 9D|2 play AD|3 play QD|4 play JS|0 play JC|3 play KC|4 play 7C|"
        "0 play 8C|1 play TC|2 play TH|1 play QS|2 play 8S|3 play TS|4 play KD|"
        "0 play KS|1 play QC|2 play 7H|3 play AS|4 play 9C|0 play 7S",
    ),
    "partner_win": (
        3,
        "7H 8S KS 8D AD JS 9H QS QC TD 7D KC AS 9D JC JH "
        "9S 8C AC TH TC TS KD 7C QH QD KH AH 8H JD 7S 9C",
        "4 pass|0 pick|0 bury 7S 9C|0 call AH|4 play JS|0 play 7D|1 play 9D|"
        "2 play KD|3 play JD|4 play KS|0 play TD|1 play AS|2 play TS|3 play QD|"
        "3 play AH|4 play 7H|0 play 9H|1 play JH|2 play TH|1 play 8C|2 play TC|"
        "3 play 8H|4 play 8D|0 play KC|4 play AD|0 play QS|1 play JC|2 play 7C|"
        "3 play QH|0 play QC|1 play 9S|2 play AC|3 play KH|4 play 8S",
    ),
    "alone_win": (
        1,
        "AH KS KD QH JC JS JD AS 9H 9D 8C 8H JH 7H 9C 7D "
        "7C KH TS QS 8S KC TC AC AD TH 8D 7S QC 9S QD TD",
        "2 pick|2 bury QH KD|2 alone|2 play QD|3 play 9D|4 play 7D|0 play QS|"
        "1 play QC|1 play 9S|2 play KS|3 play AS|4 play 7H|0 play TS|3 play 9H|"
        "4 play KH|0 play KC|1 play TH|2 play AH|2 play JS|3 play JD|4 play JH|"
        "0 play 8S|1 play AD|2 play JC|3 play 8C|4 play 9C|0 play TC|1 play 8D|"
        "2 play TD|3 play 8H|4 play 7C|0 play AC|1 play 7S",
    ),
    "partner_loss": (
        0,
        "JS 7D KS TC KD AC 9H 9S 9D 9C 7S TH KH TS 7C JD "
        "JH JC QC 8C AH KC AS AD QD QH 8D 8H 8S QS TD 7H",
        "1 pass|2 pick|2 bury 9S TD|2 call AC|1 play AC|2 play 9C|3 play 7C|"
        "4 play KC|0 play 8S|1 play TC|2 play 7S|3 play TS|4 play 8C|0 play 8H|"
        "1 play KD|2 play 9D|3 play JC|4 play AD|0 play QH|0 play QD|1 play JS|"
        "2 play 9H|3 play JD|4 play QC|4 play AS|0 play QS|1 play KS|2 play TH|"
        "3 play JH|0 play 8D|1 play 7D|2 play 7H|3 play KH|4 play AH",
    ),
    "alone_loss": (
        4,
        "JS TD 7S 9S 9C QH QD AD AH 8H TS 7D KS KH 7H 9D "
        "AS JH QC 8C KD KC JC 8S JD AC QS TC 7C 8D 9H TH",
        "0 pass|1 pick|1 bury 8H 9H|1 alone|0 play TD|1 play AD|2 play JH|"
        "3 play KD|4 play QS|4 play 8D|0 play JS|1 play QD|2 play 9D|3 play QC|"
        "3 play 8S|4 play 7C|0 play 9S|1 play TS|2 play KS|1 play TH|2 play 7H|"
        "3 play 8C|4 play TC|0 play 7S|1 play AH|2 play KH|3 play JC|4 play JD|"
        "0 play 9C|3 play KC|4 play AC|0 play QH|1 play 7D|2 play AS",
    ),
    "partner_loss_schneider": (
        1,
        "7C 9H 8C JS AS 8D 8S JH AC JD 9S 9D QD TC AD QH "
        "KH TH 8H KD AH 7D 7H 7S TS TD 9C QC KC KS JC QS",
        "2 pass|3 pick|3 bury JH QS|3 call AS|2 play 8C|3 play AC|4 play TC|"
        "0 play 7S|1 play KC|3 play 9D|4 play AD|0 play KD|1 play TD|2 play 8D|"
        "4 play KH|0 play 8H|1 play QC|2 play 9H|3 play JC|1 play 9C|2 play 7C|"
        "3 play JD|4 play QH|0 play AH|4 play QD|0 play 7D|1 play TS|2 play JS|"
        "3 play 8S|4 play TH|0 play 7H|1 play KS|2 play AS|3 play 9S",
    ),
    "alone_loss_schneider": (
        0,
        "QC 8S 8C KH TS 7C KD AS KS AH TH QD AD 9S JS 9D "
        "TD JD 8D TC JH 7D KC AC 7H 8H QH 7S 9C QS JC 9H",
        "1 pick|1 bury 7C KH|1 alone|1 play 8C|2 play TH|3 play AD|4 play KC|"
        "0 play 9C|3 play TD|4 play 7D|0 play QH|1 play JC|2 play KD|0 play 8H|"
        "1 play 9H|2 play AH|3 play JD|4 play JH|4 play TC|0 play 7H|1 play TS|"
        "2 play QD|3 play 9D|2 play KS|3 play 9S|4 play AC|0 play 7S|1 play 8S|"
        "2 play AS|3 play JS|4 play 8D|0 play QS|1 play QC",
    ),
    "partner_loss_schwarz": (
        1,
        "KC QC 8C 7S 7D 8D TH QH JH 8S JD AD AH KH 7C TD "
        "7H 9S QS JC AC TC 9C QD KS AS 9H TS KD 9D 8H JS",
        "2 pick|2 bury 7D QC|2 call AH|2 play 8D|3 play JH|4 play TD|0 play QS|"
        "1 play KD|0 play TC|1 play KS|2 play KC|3 play QH|4 play 7C|3 play AD|"
        "4 play KH|0 play QD|1 play 9D|2 play JS|0 play 9C|1 play 9H|2 play 8C|"
        "3 play JD|4 play 9S|3 play TH|4 play AH|0 play JC|1 play TS|2 play 8H|"
        "0 play AC|1 play AS|2 play 7S|3 play 8S|4 play 7H",
    ),
    "alone_loss_schwarz": (
        0,
        "7S TH AS 7H TD QD 9S JH AD TS KH JC KC 9D 9H 8H "
        "7D AC JD 8C TC QH 8D AH KD 7C QC KS QS JS 8S 9C",
        "1 pick|1 bury 7H 9C|1 alone|1 play 8S|2 play 9S|3 play AC|4 play AH|"
        "0 play KS|0 play 7C|1 play AS|2 play TS|3 play KC|4 play TC|4 play 8C|"
        "0 play KD|1 play TD|2 play JC|3 play 9H|2 play KH|3 play 8H|4 play 8D|"
        "0 play JS|1 play TH|0 play QC|1 play QD|2 play JH|3 play 7D|4 play QH|"
        "0 play QS|1 play 7S|2 play AD|3 play 9D|4 play JD",
    ),
    "points_30": (
        4,
        "AC QD 9H QH 9S 7H TD 7S JH QC 8D JS TH KH KS JC "
        "9C AD 8H 7D 8S KD TS 9D AH KC TC QS JD AS 8C 7C",
        "0 pass|1 pass|2 pick|2 bury TH AD|2 call AC|0 play AC|1 play JH|"
        "2 play 8C|3 play 9D|4 play TC|1 play QC|2 play JC|3 play KD|4 play JD|"
        "0 play QH|1 play 7S|2 play KS|3 play 8S|4 play AS|0 play 9S|4 play KC|"
        "0 play QD|1 play JS|2 play 9C|3 play 7D|0 play 7H|1 play TD|2 play KH|"
        "3 play 8H|4 play AH|1 play 8D|2 play 7C|3 play TS|4 play QS|0 play 9H",
    ),
    "points_31": (
        1,
        "QS TH QC QH KC 8S 9C AD TS 9H 7D KH 7S 8C KS AH "
        "JC 9D JH TD JD JS 8D 8H TC KD QD AC 9S 7C AS 7H",
        "2 pick|2 bury 8S QS|2 call AC|2 play 7H|3 play 9H|4 play AH|0 play 8H|"
        "1 play 9S|4 play JC|0 play JS|1 play KD|2 play QH|3 play AD|2 play AS|"
        "3 play TS|4 play KS|0 play JH|1 play TC|0 play 8D|1 play QD|2 play QC|"
        "3 play 7D|4 play 9D|2 play TH|3 play KH|4 play 8C|0 play JD|1 play 7C|"
        "0 play TD|1 play AC|2 play KC|3 play 9C|4 play 7S",
    ),
    "points_60": (
        4,
        "TS 8C KH QC QS AS 8D TH 9C 7C JS 9D 7H QD 9H KS "
        "7S QH AD 8S KD TC JH AH TD 8H JD 9S AC JC 7D KC",
        "0 pass|1 pick|1 bury 9C TH|1 call AC|0 play QC|1 play JS|2 play QD|"
        "3 play KD|4 play JD|0 play TS|1 play 7C|2 play 7S|3 play 8S|4 play 9S|"
        "0 play AS|1 play 9D|2 play KS|3 play TC|4 play TD|4 play 8H|0 play KH|"
        "1 play 8D|2 play 7H|3 play AH|1 play 7D|2 play QH|3 play JH|4 play JC|"
        "0 play QS|0 play 8C|1 play KC|2 play 9H|3 play AD|4 play AC",
    ),
    "points_61": (
        1,
        "8S 7D AC AS KD 8C AD QC TH 9D 8D 9S AH TC QH TS "
        "9C JH QS JD 7H JC JS KC TD QD KH 7S 9H 7C KS 8H",
        "2 pass|3 pass|4 pick|4 bury 9C TS|4 call AC|2 play 7D|3 play 9D|"
        "4 play JH|0 play JD|1 play QD|1 play 9H|2 play 8S|3 play TH|4 play AH|"
        "0 play 7H|4 play TC|0 play KC|1 play 7C|2 play AC|3 play 8D|3 play AD|"
        "4 play QH|0 play JS|1 play TD|2 play KD|4 play KS|0 play QS|1 play 7S|"
        "2 play AS|3 play 9S|0 play JC|1 play KH|2 play 8C|3 play QC|4 play 8H",
    ),
    "points_90": (
        3,
        "8C JH AH KD TS KS 7H AS 8S QS QC AD TD 7S QH KC "
        "KH JD QD 7D 9H JS AC 9D 7C TC 8H 9S TH 9C JC 8D",
        "4 pick|4 bury 8C TS|4 call AS|4 play KS|0 play AS|1 play 7S|2 play JS|"
        "3 play 9S|2 play 9D|3 play 9C|4 play 8D|0 play AD|1 play JD|1 play TD|"
        "2 play QD|3 play 8H|4 play KD|0 play QC|0 play 8S|1 play KC|2 play 7D|"
        "3 play 7C|4 play JH|4 play JC|0 play QS|1 play QH|2 play 9H|3 play TC|"
        "0 play 7H|1 play KH|2 play AC|3 play TH|4 play AH",
    ),
    "points_91": (
        3,
        "AD 8S JH KH 9C TD AH QS QH JD 9S QD JC 7S AC TC "
        "TH KC 7D 9D 8C 8D QC AS TS 8H 7C 7H KS JS 9H KD",
        "4 pass|0 pick|0 bury 9H QS|0 call AS|4 play JH|0 play QH|1 play JC|"
        "2 play 9D|3 play JS|0 play KD|1 play AC|2 play 7D|3 play KS|4 play TD|"
        "4 play 9C|0 play QD|1 play TC|2 play 8C|3 play 7C|0 play JD|1 play 7S|"
        "2 play 8D|3 play 7H|4 play AD|0 play AH|1 play TH|2 play QC|3 play 8H|"
        "4 play KH|2 play AS|3 play TS|4 play 8S|0 play 9S|1 play KC",
    ),
    "called_ten": (
        0,
        "AS QD AH KD AC 8H JC 8D 7C KC JS QH 9C TD 9S TS "
        "QC JD TH AD 7D 7H JH 9D TC KS 9H 8S KH 8C 7S QS",
        "1 pick|1 bury 8H QS|1 call TH|1 play AC|2 play KC|3 play 9C|4 play JH|"
        "0 play TC|4 play AD|0 play 8C|1 play KD|2 play QH|3 play TD|2 play 8D|"
        "3 play QC|4 play 7D|0 play 9H|1 play QD|3 play 9S|4 play 7H|0 play 8S|"
        "1 play 7S|2 play JC|2 play JS|3 play JD|4 play 9D|0 play KH|1 play AS|"
        "2 play 7C|3 play TS|4 play TH|0 play KS|1 play AH",
    ),
    "unknown_never_led": (
        0,
        "TC TS JC KH AS 8C 7D 8D QS KD JS AC QD 8S 7C TH "
        "9S 9H TD QC 9D AH JH 9C KS AD 7H 7S KC 8H QH JD",
        "1 pass|2 pick|2 bury 8D AC|2 call_unknown AH KD|1 play AS|2 play 7D|3 play 9S|"
        "4 play JH|0 play 7S|4 play 9D|0 play AD|1 play JC|2 play JS|3 play QD|"
        "3 play 7C|4 play 9C|0 play KC|1 play 8C|2 play QS|2 play JD|3 play TH|"
        "4 play QC|0 play 8H|1 play TS|4 play TD|0 play 7H|1 play KH|2 play QH|"
        "3 play 9H|2 play KD|3 play 8S|4 play AH|0 play KS|1 play TC",
    ),
    "unknown_led": (
        3,
        "9S QC KD AC QH AD 8S QS 7H 7S KC KH 7C 9C 9D KS "
        "TS JS 8D JD AS 8H AH TD 7D 9H JC TH TC 8C JH QD",
        "4 pick|4 bury 9S QD|4 call_unknown AH QH|4 play QC|0 play QS|1 play JS|2 play JD|"
        "3 play 7D|4 play JH|0 play KC|1 play 9D|2 play 8D|3 play JC|3 play 9H|"
        "4 play QH|0 play 7H|1 play TS|2 play AH|2 play TD|3 play TH|4 play AD|"
        "0 play 8S|1 play 7C|4 play KD|0 play 7S|1 play 9C|2 play 8H|3 play 8C|"
        "4 play AC|0 play KH|1 play KS|2 play AS|3 play TC",
    ),
    "partner_leads_called": (
        4,
        "KS KC KH TS 9H 8H TD JC AC AS 9C QC AD AH 7C 9S "
        "7S QD 8S JD JS 8C KD JH 7D QH 7H QS 8D TC TH 9D",
        "0 pick|0 bury 9H TS|0 call AS|0 play 9D|1 play TD|2 play QD|3 play KD|"
        "4 play QH|4 play QS|0 play KH|1 play JC|2 play AD|3 play JH|4 play 7D|"
        "0 play KC|1 play QC|2 play 7C|3 play JD|1 play AS|2 play 7S|3 play 8S|"
        "4 play TC|0 play KS|1 play 9C|2 play 9S|3 play 8C|4 play 7H|0 play 8H|"
        "1 play AC|2 play AH|3 play JS|4 play 8D|0 play TH",
    ),
    "partner_revealed_last_trick": (
        2,
        "JC TC JH AD AH 8H 7S KH 8S 8D KD 9C KC JS 7H 9H "
        "AS AC 7C JD QS 8C 9D TS KS QD QC 7D 9S TD TH QH",
        "3 pass|4 pass|0 pick|0 bury QH KC|0 call AH|3 play TC|4 play 9C|"
        "0 play AC|1 play 8C|2 play TD|2 play 9S|3 play 8H|4 play 7S|0 play AS|"
        "1 play TS|0 play JS|1 play JD|2 play QD|3 play AD|4 play KD|2 play QC|"
        "3 play JC|4 play 8D|0 play 9H|1 play 9D|2 play 7D|3 play JH|4 play KH|"
        "0 play TH|1 play QS|1 play 7C|2 play KS|3 play AH|4 play 8S|0 play 7H",
    ),
    "leaster_winner": (
        0,
        "TC AH KS 7S KH 9S 9C TD TH 8S 7H QH 9D KC AC 9H "
        "8D 7D QC QS JH 8C AD AS JC 7C TS KD JD QD JS 8H",
        "1 pass|2 pass|3 pass|4 pass|0 pass|1 play KS|2 play 8S|"
        "3 play AC|4 play AS|0 play TS|4 play AD|0 play QD|1 play KH|2 play QH|"
        "3 play 8D|2 play 9C|3 play KC|4 play 8C|0 play 7C|1 play TC|1 play 7S|"
        "2 play TH|3 play 7D|4 play QC|0 play JD|4 play JH|0 play JC|1 play AH|"
        "2 play TD|3 play 9D|0 play KD|1 play 9S|2 play 7H|3 play 9H|4 play QS",
    ),
    "leaster_tie": (
        0,
        "KC JS AS 7H JH 9D KH QC 8D KD 9C 9H 7S TC KS 7D "
        "8C TH 8H QD AD QS TD JD 7C QH JC 8S 9S TS AC AH",
        "1 pass|2 pass|3 pass|4 pass|0 pass|1 play JS|2 play QC|"
        "3 play 7D|4 play JD|0 play QH|2 play 9H|3 play TH|4 play 8H|0 play 8S|"
        "1 play 7H|3 play 7S|4 play AD|0 play 9S|1 play AS|2 play 8D|4 play QS|"
        "0 play JC|1 play JH|2 play KD|3 play 8C|4 play QD|0 play TS|1 play 9D|"
        "2 play KH|3 play KS|4 play TD|0 play 7C|1 play KC|2 play 9C|3 play TC",
    ),
}
