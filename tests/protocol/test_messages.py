"""The wire messages: an example of every type round-trips; malformed frames are refused."""

from __future__ import annotations

import json
from typing import Any, get_args

import pytest
from pydantic import BaseModel, ValidationError

from protocol import messages as m
from server.rules.sheepshead import Sheepshead
from server.rules.shithead import Shithead

# real views: a state frame's view is one game's view, every field of it (protocol/views.py)
SHITHEAD_VIEW = Shithead.new(3, 0, seed=2).view(1)
SHEEPSHEAD_VIEW = Sheepshead.new(5, 4, seed=1).view(None)

SEATS = [
    {"seat": 0, "kind": "human", "name": "Ann", "connected": True, "host": True},
    {"seat": 1, "kind": "bot", "name": "Bot 2", "bot_level": "basic", "connected": True},
    {"seat": 2, "kind": "empty"},
]
ROOM_INFO = {
    "room": "K7Q2M",
    "game": "shithead",
    "status": "lobby",
    "seats": SEATS,
    "spectators": 1,
    "locked": False,
    "turn_timer": 30,
    "options": {},
    "games_played": 0,
    "totals": [0, 0, 0],
}

#: One example frame of every client message type.
CLIENT_EXAMPLES: dict[str, dict[str, Any]] = {
    "queue": {"type": "queue", "id": "q1", "game": "shithead", "name": "Ann"},
    "queue_cancel": {"type": "queue_cancel", "id": "q2"},
    "hello": {"type": "hello", "id": "1", "protocol": 1, "client": "cardroom-python"},
    "create": {
        "type": "create",
        "id": "2",
        "game": "shithead",
        "seats": 3,
        "name": "Ann",
        "turn_timer": 30,
        "options": {},
        "daily": False,
    },
    "join": {"type": "join", "id": "3", "room": "K7Q2M", "name": "Bob", "seat": 1},
    "watch": {"type": "watch", "id": 4, "room": "K7Q2M"},
    "resume": {"type": "resume", "id": "5", "room": "K7Q2M", "token": "s3cr3t-t0ken"},
    "act": {
        "type": "act",
        "id": "6",
        "room": "K7Q2M",
        "version": 4,
        "action": {"kind": "play", "cards": ["7D", "7S"], "slot": None},
    },
    "host": {
        "type": "host",
        "id": "7",
        "room": "K7Q2M",
        "op": "add_bot",
        "seat": 2,
        "level": "strong",
    },
    "chat": {"type": "chat", "id": "8", "room": "K7Q2M", "text": "good luck"},
    "react": {"type": "react", "id": "9", "room": "K7Q2M", "emote": "laugh"},
    "leave": {"type": "leave", "id": "9", "room": "K7Q2M"},
    "hint": {"type": "hint", "id": "12", "room": "K7Q2M"},
    "contribute": {
        "type": "contribute",
        "id": "13",
        "room": "K7Q2M",
        "game": 0,
        "value": "ab" * 32,
    },
    "ping": {"type": "ping", "id": "10"},
    "leaderboard": {"type": "leaderboard", "id": "11", "board": "daily:2026-11-30", "limit": 5},
    "identify": {"type": "identify", "id": "12", "challenge": "2026-12-07.abc.sig", "nonce": "83"},
    "move_code": {"type": "move_code", "id": "12"},
    "move_claim": {"type": "move_claim", "id": "13", "code": "k7q2-m9xa"},
    "event_create": {
        "type": "event_create",
        "id": "20",
        "name": "Ann",
        "game": "sheepshead",
        "table_size": 5,
        "rounds": 3,
        "hands": 2,
        "duplicate": True,
        "reseat": "rotation",
        "options": {"partner": "called_ace", "no_pick": "leaster", "crack": False},
    },
    "event_join": {"type": "event_join", "id": "21", "event": "Q4K2P", "name": "Bob"},
    "event_watch": {"type": "event_watch", "id": "22", "event": "Q4K2P"},
    "event_leave": {"type": "event_leave", "id": "23", "event": "Q4K2P"},
    "event_host": {"type": "event_host", "id": "24", "event": "Q4K2P", "op": "start"},
}

#: One example frame of every server message type.
SERVER_EXAMPLES: dict[str, dict[str, Any]] = {
    "queued": {
        "type": "queued",
        "ref": "q1",
        "game": "shithead",
        "waiting": 3,
        "waited": 4.5,
        "fill_in": 15.5,
    },
    "seated": {
        "type": "seated",
        "game": "shithead",
        "room": "K7Q2M",
        "seat": 1,
        "token": "c2VhdC10b2tlbi1zZWNyZXQtMDEyMzQ1",
    },
    "welcome": {
        "type": "welcome",
        "ref": "1",
        "protocol": 1,
        "server": "cardroom 0.1.0",
        "games": ["shithead", "sheepshead"],
    },
    "error": {"type": "error", "code": "stale_version", "message": "the game moved on", "ref": "6"},
    "joined": {"type": "joined", "ref": "3", "room": "K7Q2M", "seat": 1, "token": "s3cr3t-t0ken"},
    "ack": {"type": "ack", "ref": "6", "version": 5},
    "room": {"type": "room", "room": ROOM_INFO},
    "state": {
        "type": "state",
        "room": "K7Q2M",
        "version": 5,
        "seat": 1,
        "view": SHITHEAD_VIEW,
        "events": [{"kind": "played", "seat": 0, "cards": ["7D", "7S"], "source": "hand"}],
        "deadline": 1732890000.5,
    },
    "chat": {
        "type": "chat",
        "room": "K7Q2M",
        "seat": None,
        "name": "spectator",
        "text": "nice",
        "at": 1732890000.0,
    },
    "reaction": {
        "type": "reaction",
        "room": "K7Q2M",
        "seat": 1,
        "emote": "laugh",
        "at": 1732890000.0,
    },
    "pong": {"type": "pong", "ref": "10"},
    "closing": {"type": "closing", "reason": "server shutting down"},
    "moved": {"type": "moved", "room": "K7Q2M"},
    "hint": {
        "type": "hint",
        "ref": "12",
        "room": "K7Q2M",
        "version": 9,
        "seat": 1,
        "action": {"kind": "play", "cards": ["JD"], "slot": None},
        "reason": {
            "key": "hint.sh_play_low",
            "params": {"ranks": "J", "top": "9"},
            "text": "play the J: the lowest card that beats the 9 keeps your high cards",
        },
        "level": "strong",
    },
    "log": {
        "type": "log",
        "room": "K7Q2M",
        "version": 5,
        "entries": [
            {"game": 0, "event": {"kind": "ready", "seat": 0}},
            {"game": 0, "event": {"kind": "played", "seat": 0, "cards": ["3C"], "timed_out": True}},
        ],
    },
    "identified": {"type": "identified", "ref": "12", "device": "cr1" + "a" * 40},
    "event": {
        "type": "event",
        "info": {
            "code": "Q4K2P",
            "game": "sheepshead",
            "table_size": 5,
            "rounds": 3,
            "hands": 2,
            "duplicate": True,
            "reseat": "standings",
            "options": {},
            "phase": "lobby",
            "host": "Ann",
            "paused": False,
            "round": -1,
            "hands_left": 0,
            "commitment": "00" * 32,
            "seed": None,
            "people": [{"name": "Ann", "left": False, "stand_in": False}],
            "seatings": [],
            "standings": [],
            "deals": [],
        },
        "you": {"name": "Ann", "room": None, "seat": None, "token": None},
    },
    "standings": {
        "type": "standings",
        "ref": "11",
        "board": "shithead",
        "entries": [{"rank": 1, "player": "9f2c41d0", "name": "Ann", "score": 3, "games": 4}],
        "you": None,
    },
    "move_offer": {"type": "move_offer", "ref": "12", "code": "K7Q2M9XA", "expires": 1e9},
    "identity": {
        "type": "identity",
        "ref": "13",
        "device": "cr1Xq3v9LmP0aB7cD2eF4gH6iJ8kL0mN2oP4qR6sT8u",
        "player": "9f2c41d0a7b35e6c18d4",
    },
}


def _tags(union: Any) -> set[str]:
    members = get_args(get_args(union)[0])
    return {cls.model_fields["type"].default for cls in members}


def test_the_examples_cover_every_message_type() -> None:
    assert set(CLIENT_EXAMPLES) == _tags(m.ClientMessage)
    assert set(SERVER_EXAMPLES) == _tags(m.ServerMessage)


@pytest.mark.parametrize("tag", sorted(CLIENT_EXAMPLES))
def test_client_messages_round_trip(tag: str) -> None:
    msg = m.parse_client(json.dumps(CLIENT_EXAMPLES[tag]))
    assert msg.type == tag
    text = m.dump(msg)
    assert m.parse_client(text) == msg
    assert m.parse_client(text.encode()) == msg  # binary frames parse too


@pytest.mark.parametrize("tag", sorted(SERVER_EXAMPLES))
def test_server_messages_round_trip(tag: str) -> None:
    msg = m.parse_server(json.dumps(SERVER_EXAMPLES[tag]))
    assert msg.type == tag
    assert m.parse_server(m.dump(msg)) == msg


def test_dump_is_compact_and_keeps_nones() -> None:
    text = m.dump(m.Joined(ref="4", room="K7Q2M", seat=None))
    want = '{"type":"joined","ref":"4","room":"K7Q2M","seat":null,"token":null,"waiting":false}'
    assert text == want


def test_defaults_fill_in() -> None:
    act = m.parse_client(
        '{"type":"act","id":"1","room":"K7Q2M","version":0,"action":{"kind":"ready"}}'
    )
    assert isinstance(act, m.Act)
    assert act.action.cards == [] and act.action.slot is None
    view = json.dumps(SHEEPSHEAD_VIEW)
    state = m.parse_server(
        f'{{"type":"state","room":"K7Q2M","version":1,"seat":null,"view":{view}}}'
    )
    assert isinstance(state, m.State)
    assert state.events == [] and state.deadline is None and state.view == SHEEPSHEAD_VIEW


def test_models_are_frozen() -> None:
    msg = m.Ping(id="1")
    with pytest.raises(ValidationError):
        msg.id = "2"


def _with(tag: str, **changes: Any) -> str:
    frame = dict(CLIENT_EXAMPLES[tag])
    frame.update(changes)
    return json.dumps(frame)


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param('{"type": "shout", "id": "1"}', id="unknown type"),
        pytest.param('{"id": "1", "protocol": 1}', id="no type"),
        pytest.param('{"type": "ping"}', id="no id"),
        pytest.param('{"type": "ping", "id": ""}', id="empty id"),
        pytest.param("[1, 2]", id="not an object"),
        pytest.param("{", id="not json"),
        pytest.param(_with("ping", extra=1), id="extra field"),
        pytest.param(
            _with("act", action={"kind": "play", "cards": ["7D"], "x": 1}), id="extra action field"
        ),
        pytest.param(_with("act", action={"kind": "play", "cards": ["1D"]}), id="bad rank"),
        pytest.param(_with("act", action={"kind": "play", "cards": ["7X"]}), id="bad suit"),
        pytest.param(_with("act", action={"kind": "play", "cards": ["7DS"]}), id="long card"),
        pytest.param(_with("act", action={"kind": "play", "cards": ["10D"]}), id="10 for T"),
        pytest.param(_with("act", action={"kind": "play", "cards": [7]}), id="card as int"),
        pytest.param(_with("act", action={"kind": "Play"}), id="kind not lower case"),
        pytest.param(_with("act", action={"kind": "flip", "slot": 9}), id="slot too big"),
        pytest.param(
            _with("act", action={"kind": "play", "cards": ["2C"] * 9}), id="too many cards"
        ),
        pytest.param(_with("act", version=-1), id="negative version"),
        pytest.param(_with("chat", text="x" * (m.CHAT_MAX + 1)), id="overlong chat"),
        pytest.param(_with("chat", text="   "), id="blank chat"),
        pytest.param(_with("react", emote="dance"), id="unknown emote"),
        pytest.param(_with("join", room="K7Q2"), id="short room code"),
        pytest.param(_with("join", room="K7Q2MX"), id="long room code"),
        pytest.param(_with("join", room="K7-2M"), id="room code punctuation"),
        pytest.param(_with("join", name=""), id="empty name"),
        # names are bounded here and checked by the room (24 characters, bad_name)
        pytest.param(_with("join", name="n" * 65), id="long name"),
        pytest.param(_with("join", seat=65), id="seat out of range"),
        pytest.param(_with("create", game="poker"), id="unknown game"),
        # seat counts are bounded here and checked per game by the server (bad_seats)
        pytest.param(_with("create", seats=65), id="too many seats"),
        pytest.param(_with("create", options={"speed": 2}), id="unknown option"),
        pytest.param(
            _with("create", options={"a": json.loads("[" * 300 + "]" * 300)}),
            id="deeply nested options",
        ),
        pytest.param(_with("create", turn_timer=0), id="turn timer too short"),
        pytest.param(_with("host", op="explode"), id="unknown host op"),
        pytest.param(_with("host", level="godlike"), id="unknown bot level"),
        pytest.param(_with("resume", token="short"), id="short token"),
    ],
)
def test_malformed_client_frames_are_refused(frame: str) -> None:
    with pytest.raises(ValidationError):
        m.parse_client(frame)


@pytest.mark.parametrize(
    "frame",
    [
        pytest.param('{"type": "hello", "ref": "1"}', id="client type from the server"),
        pytest.param('{"type": "pong", "ref": "1", "extra": true}', id="extra field"),
        pytest.param('{"type": "error", "message": "no code"}', id="error without code"),
        pytest.param('{"type": "joined", "ref": "1", "room": "K7Q2M"}', id="joined without seat"),
    ],
)
def test_malformed_server_frames_are_refused(frame: str) -> None:
    with pytest.raises(ValidationError):
        m.parse_server(frame)


def test_chat_of_exactly_the_limit_is_accepted() -> None:
    msg = m.parse_client(_with("chat", text="x" * m.CHAT_MAX))
    assert isinstance(msg, m.Chat) and len(msg.text) == m.CHAT_MAX


def test_card_codes_are_case_insensitive_and_normalised() -> None:
    msg = m.parse_client(_with("act", action={"kind": "play", "cards": ["td", "Qh", "aS", " 2c "]}))
    assert isinstance(msg, m.Act)
    assert msg.action.cards == ["TD", "QH", "AS", "2C"]
    assert m.ActionModel(kind="pickup", cards=["7d"]).cards == ["7D"]


def test_room_codes_are_case_insensitive_and_normalised() -> None:
    for tag in ("join", "watch", "resume", "act", "host", "chat", "leave"):
        msg = m.parse_client(_with(tag, room="k7q2m"))
        assert msg.model_dump()["room"] == "K7Q2M", tag
    assert m.Watch(id="1", room=" abCde ").room == "ABCDE"


def test_request_ids_may_be_strings_or_integers() -> None:
    assert m.parse_client('{"type": "ping", "id": 7}').id == 7
    assert m.parse_client('{"type": "ping", "id": "7"}').id == "7"
    pong = m.parse_server('{"type": "pong", "ref": 7}')
    assert isinstance(pong, m.Pong) and pong.ref == 7


def test_refused_construction_in_python_too() -> None:
    with pytest.raises(ValidationError):
        m.Join(id="1", room="nope!", name="Ann")
    with pytest.raises(ValidationError):
        m.Chat(id="1", room="K7Q2M", text="x" * 281)


def test_every_model_forbids_extra_fields() -> None:
    for cls in (*get_args(get_args(m.ClientMessage)[0]), *get_args(get_args(m.ServerMessage)[0])):
        assert issubclass(cls, BaseModel)
        assert cls.model_config.get("extra") == "forbid", cls.__name__


@pytest.mark.parametrize("game", [["shithead"], {"g": 1}, 7, None])
def test_a_create_whose_game_is_not_a_name_is_refused_as_invalid(game: object) -> None:
    # the options are read as their game's model: a game that is no string (a list cannot even
    # be looked up) is a schema refusal like any other, not a crash (found by cardroom fuzz)
    frame = {"type": "create", "id": "1", "game": game, "seats": 3, "options": {"crack": True}}
    with pytest.raises(ValidationError):
        m.parse_client(json.dumps(frame))
