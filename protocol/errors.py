"""Every error code the server sends, in one list: the server refuses only with these, the
schema (``protocol/schema.json``) lists them, and ``docs/protocol.md`` documents each (a test
checks both directions).

Codes are stable and machine-readable; an ``error`` frame's ``message`` is for people. The wire
model keeps ``Error.code`` a plain string so that an older client still reads a code added later.

>>> ErrorCode("stale_version") is ErrorCode.STALE_VERSION
True
>>> str(ErrorCode.NOT_HOST)
'not_host'
"""

from __future__ import annotations

from enum import StrEnum


class ErrorCode(StrEnum):
    # frame and session (server/net)
    BINARY_FRAME = "binary_frame"
    TOO_LARGE = "too_large"
    BAD_JSON = "bad_json"
    UNKNOWN_TYPE = "unknown_type"
    INVALID_MESSAGE = "invalid_message"
    HELLO_REQUIRED = "hello_required"
    HELLO_TIMEOUT = "hello_timeout"
    UNSUPPORTED_PROTOCOL = "unsupported_protocol"
    RATE_LIMITED = "rate_limited"
    POLICY_VIOLATION = "policy_violation"
    SHUTTING_DOWN = "shutting_down"
    INTERNAL_ERROR = "internal_error"
    STORE_UNAVAILABLE = "store_unavailable"
    BAD_BOARD = "bad_board"
    BAD_WORK = "bad_work"
    IDENTITIES_SPENT = "identities_spent"
    NO_IDENTITY = "no_identity"
    BAD_MOVE_CODE = "bad_move_code"
    # rooms (server/rooms)
    ROOM_NOT_FOUND = "room_not_found"
    BUSY = "busy"
    BAD_SEATS = "bad_seats"
    ALREADY_IN_ROOM = "already_in_room"
    ROOM_LOCKED = "room_locked"
    GAME_IN_PROGRESS = "game_in_progress"
    BAD_SEAT = "bad_seat"
    SEAT_TAKEN = "seat_taken"
    ROOM_FULL = "room_full"
    BAD_NAME = "bad_name"
    NAME_TAKEN = "name_taken"
    BAD_TOKEN = "bad_token"
    NOT_IN_ROOM = "not_in_room"
    NOT_SEATED = "not_seated"
    NOT_STARTED = "not_started"
    STALE_VERSION = "stale_version"
    NOT_HOST = "not_host"
    NOT_A_BOT = "not_a_bot"
    ALREADY_STARTED = "already_started"
    AGAIN_SET = "again_set"
    NOT_BETWEEN_GAMES = "not_between_games"
    REPLACED = "replaced"
    REMOVED = "removed"
    HINTS_NOT_ALLOWED = "hints_not_allowed"
    DAILY_FIXED = "daily_fixed"
    DAILY_OPTIONS = "daily_options"
    BOT_LEVEL_FIXED = "bot_level_fixed"
    HINTS_OFF = "hints_off"
    HINT_PENDING = "hint_pending"
    EXPERT_LIMIT = "expert_limit"
    RATED_NOT_ALLOWED = "rated_not_allowed"
    SAME_ADDRESS = "same_address"
    # room budgets and moderation (server/rooms)
    TOO_MANY_ROOMS = "too_many_rooms"
    BANNED = "banned"
    MUTED = "muted"
    CHAT_BUSY = "chat_busy"
    TOO_MANY_MISSES = "too_many_misses"
    SPECTATORS_FULL = "spectators_full"
    TOO_MANY_SWAPS = "too_many_swaps"
    BAD_CONTRIBUTION = "bad_contribution"
    # the Play now queue (server/runtime/queue_service.py)
    ALREADY_QUEUED = "already_queued"
    NOT_QUEUED = "not_queued"
    QUEUE_FULL = "queue_full"
    QUEUE_TOO_OFTEN = "queue_too_often"
    QUEUE_PENALTY = "queue_penalty"
    LADDER_BOTS_ONLY = "ladder_bots_only"  # a person asked for the bots' ladder
    BOTS_TO_LADDER = "bots_to_ladder"  # a bot identity asked for the people's queue
    # events: several tables and rounds (server/rooms/event_*.py)
    BAD_EVENT = "bad_event"
    EVENT_NOT_FOUND = "event_not_found"
    TOO_MANY_EVENTS = "too_many_events"
    EVENT_STARTED = "event_started"
    EVENT_FULL = "event_full"
    EVENT_NOT_STARTED = "event_not_started"
    EVENT_OVER = "event_over"
    NOT_IN_EVENT = "not_in_event"
    # rules, both games (server/rules, IllegalAction)
    MALFORMED_ACTION = "malformed_action"
    UNKNOWN_ACTION = "unknown_action"
    ILLEGAL_ACTION = "illegal_action"
    WRONG_PHASE = "wrong_phase"
    NOT_YOUR_TURN = "not_your_turn"
    CARDS_NOT_HELD = "cards_not_held"
    GAME_OVER = "game_over"
    GAME_NOT_OVER = "game_not_over"
    HAND_NOT_OVER = "hand_not_over"
    MATCH_OVER = "match_over"
    # rules, Shithead
    ALREADY_READY = "already_ready"
    BAD_SLOT = "bad_slot"
    ILLEGAL_CARD = "illegal_card"
    MIXED_RANKS = "mixed_ranks"
    MUST_PLAY_FROM_HAND = "must_play_from_hand"
    MUST_PLAY_FACE_UP = "must_play_face_up"
    MUST_ADD_FACE_UP = "must_add_face_up"
    MUST_FLIP = "must_flip"
    EMPTY_PILE = "empty_pile"
    UNEXPECTED_CARD = "unexpected_card"
    # rules, Sheepshead
    MUST_BURY_TWO = "must_bury_two"
    CANNOT_CALL = "cannot_call"
    MUST_FOLLOW_SUIT = "must_follow_suit"
    MUST_KEEP_CALLED_CARD = "must_keep_called_card"
    CALLED_SUIT_HOLD = "called_suit_hold"
    MUST_PLAY_CALLED_CARD = "must_play_called_card"
    UNKNOWN_CARD_LOCKED = "unknown_card_locked"
    MUST_PICK = "must_pick"
    CANNOT_CRACK = "cannot_crack"


#: Every code, in the order above (the schema and the docs test use it).
ERROR_CODES: tuple[str, ...] = tuple(c.value for c in ErrorCode)
