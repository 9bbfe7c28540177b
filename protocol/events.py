"""An event's public state as pydantic models: what its page shows and ``cardroom verify
--event`` checks (docs/events.md). People are shown by name only, in the order they joined.

>>> info = EventInfo.model_validate_json(EXAMPLE)
>>> info.phase, info.people[0].name, info.seed is None
('lobby', 'Ann', True)
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from protocol.messages import GameName

EventPhaseName = Literal["lobby", "playing", "between", "over"]
ReseatName = Literal["standings", "rotation"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class EventPerson(_Model):
    name: str
    left: bool = Field(default=False, description="left the event (a bot plays their seat)")
    stand_in: bool = Field(default=False, description="the host had a bot play for them")


class EventTableInfo(_Model):
    """One table of a round: its room (to watch) and who sits where (``null``: a bot)."""

    table: int
    room: str | None = Field(description="the table's room code, once it is open")
    seats: list[str | None]
    played: int = Field(description="hands this table has played this round")


class EventRoundInfo(_Model):
    tables: list[EventTableInfo]


class EventStanding(_Model):
    name: str
    rank: int
    units: int
    against: float = Field(description="duplicate: units against the field, summed")
    matchpoints: float = Field(description="duplicate: matchpoints, summed")
    hands: int


class EventDealSeat(_Model):
    """One seat of one table in one deal, against the same seat at the other tables."""

    name: str | None = Field(description="who sat there (null: a bot)")
    units: int
    against: float
    matchpoints: float


class EventDealTable(_Model):
    table: int
    room: str | None
    game: int = Field(description="the game's index in the room's history (its replay)")
    result: dict[str, object] | None = Field(description="the game's result, as its history")
    seats: list[EventDealSeat]


class EventDeal(_Model):
    """One duplicate deal across the tables of its round."""

    round: int
    hand: int
    tables: list[EventDealTable]


class EventInfo(_Model):
    """An event's public state, sent on every change and served at ``/api/events/CODE``."""

    code: str
    game: GameName
    table_size: int
    rounds: int
    hands: int
    duplicate: bool
    reseat: ReseatName
    options: dict[str, object]
    phase: EventPhaseName
    host: str | None = Field(description="the host's name")
    paused: bool
    round: int = Field(description="the round being played or last played, from 0 (-1: none)")
    hands_left: int = Field(description="hands the slowest table still plays this round")
    commitment: str = Field(description="SHA-256 of the event's seed, hex, from its creation")
    seed: str | None = Field(description="the event's seed, hex, once it is over")
    people: list[EventPerson]
    seatings: list[EventRoundInfo] = Field(description="each round's tables, round 1 first")
    standings: list[EventStanding] = Field(
        description="duplicate: counting only the deals every table of its round has played"
    )
    deals: list[EventDeal] = Field(
        default_factory=list, description="duplicate, once over: each deal across its tables"
    )


EXAMPLE = (
    '{"code": "K7QPX", "game": "sheepshead", "table_size": 5, "rounds": 3, "hands": 2,'
    ' "duplicate": true, "reseat": "standings", "options": {}, "phase": "lobby", "host": "Ann",'
    ' "paused": false, "round": -1, "hands_left": 0, "commitment": "00", "seed": null,'
    ' "people": [{"name": "Ann"}], "seatings": [], "standings": []}'
)
