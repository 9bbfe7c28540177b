"""Log lines for what happened: the events of a ``state`` (public, never a hidden card), chat
lines and changes of the room's seats, as short coloured text.

>>> names = ["Ann", "Bot 2", "Bot 3"]
>>> event_line({"kind": "played", "seat": 1, "cards": ["7C", "7H"], "source": "hand"}, names).plain
'Bot 2 played 7♣ 7♥'
>>> event_line({"kind": "burned", "seat": 0, "count": 5, "reason": "ten"}, names).plain
'Ann burned the pile (a ten)'
>>> event_line({"kind": "skipped", "seat": 2}, names).plain
'Bot 3 is skipped (an 8, house rule)'
>>> event_line({"kind": "started", "seat": 0}, ["You", "Bot 2"]).plain
'Play begins: You start'
"""

from __future__ import annotations

from rich.text import Text

from clients.terminal.cards import cards_text
from protocol.messages import ChatLine, RoomInfo
from protocol.views import EventWire

#: Events said by one line of text, each with its style.
_PLAIN = {
    # Shithead
    "ready": ("{who} {is} ready", ""),
    "started": ("Play begins: {who} {starts}", ""),
    "went_out": ("{who} {is} out (place {place})", ""),
    "skipped": ("{who} {is} skipped (an 8, house rule)", ""),
    "drew": ("{who} drew {count}", "dim"),
    # Sheepshead
    "passed": ("{who} passed", ""),
    "leaster": ("Everyone passed: a leaster", ""),
    "picked": ("{who} picked up the blind", ""),
    "buried": ("{who} buried two cards", ""),
    # Sheepshead house rules (SS-10.3, SS-10.4)
    "thrown_in": ("Everyone passed: thrown in, the next hand pays double", "bold"),
    "cracked": ("{who} cracked: the stakes double", "bold magenta"),
    "recracked": ("{who} re-cracked: the stakes double again", "bold magenta"),
    "no_crack": ("{who} {does} not double the stakes", ""),
}


def is_(who: str) -> str:
    """The verb for a name: "You are", "Bot 2 is"."""
    return "are" if who == "You" else "is"


def _verbs(who: str) -> dict[str, str]:
    """The verbs a line takes, agreeing with ``who``: "You start", "Bot 2 starts".

    >>> _verbs("You")["starts"], _verbs("Ann")["does"]
    ('start', 'does')
    """
    you = who == "You"
    return {"is": is_(who), "starts": "start" if you else "starts", "does": "do" if you else "does"}


def seat_names(info: RoomInfo | None, me: int | None, players: int = 5) -> list[str]:
    """A short name per seat ("you" for this client's seat)."""
    names = [f"Seat {i + 1}" for i in range(players)]
    if info is not None:
        names = [s.name or f"Seat {s.seat + 1}" for s in info.seats]
    if me is not None and me < len(names):
        names[me] = "You"
    return names


def event_line(event: EventWire, names: list[str]) -> Text:
    """One event as a line of text; a move the server made for a player whose clock ran out
    says so."""
    line = _event_line(event, names)
    if not event.get("timed_out"):
        return line
    return Text.assemble(line, (" (out of time)", "yellow"))


def _event_line(event: EventWire, names: list[str]) -> Text:
    kind = event["kind"]
    seat = event.get("seat")
    who = names[seat] if isinstance(seat, int) and 0 <= seat < len(names) else "?"
    cards = cards_text(event.get("cards") or [])
    if kind in _PLAIN:
        line, style = _PLAIN[kind]
        place, count = event.get("place", "?"), event.get("count", 0)
        return Text(line.format(who=who, place=place, count=count, **_verbs(who)), style)
    match kind:
        case "swapped":
            return Text.assemble(
                f"{who} swapped ",
                cards_text(event["cards"][:1]),
                " for ",
                cards_text(event["cards"][1:]),
            )
        case "played" if event.get("face_down"):
            return Text(f"{who} played the unknown card face down")
        case "played":
            where = {"face_up": " (face up)", "face_down": " (face down)"}
            return Text.assemble(f"{who} played ", cards, where.get(event.get("source", ""), ""))
        case "burned":
            reason = {"ten": "a ten", "four": "four of a kind"}.get(event.get("reason", ""), "")
            return Text(f"{who} burned the pile ({reason})", style="bold yellow")
        case "picked_up":
            n = len(event.get("cards") or [])
            return Text(f"{who} picked up the pile ({n} cards)", style="magenta")
        case "flipped":
            return Text.assemble(f"{who} flipped ", cards, Text(": takes the pile", "magenta"))
        case "game_over":
            loser = names[event["loser"]] if "loser" in event else "?"
            return Text(f"Game over: {loser} {is_(loser)} the shithead", style="bold yellow")
        case "called" if event.get("alone"):
            return Text(f"{who} goes alone")
        case "called" if not event.get("cards"):  # SS-10.2: the jack's partner, unnamed
            return Text(f"{who} plays with the jack of diamonds as partner")

        case "called":
            unknown = " (under an unknown card)" if event.get("unknown") else ""
            return Text.assemble(f"{who} called ", cards, unknown)
        case "partner_revealed":
            return Text.assemble(f"{who} {is_(who)} the partner (", cards, ")", style="cyan")
        case "trick":
            pts = event.get("points", 0)
            return Text(f"{who} won trick {event.get('number', '?')} ({pts} pts)", style="green")
        case "hand_over":
            result = event.get("result")
            units = result["units"] if result else []
            score = ", ".join(f"{names[i]} {u:+d}" for i, u in enumerate(units) if i < len(names))
            return Text(f"Hand over: {score}", style="bold yellow")
    return Text(f"{who}: {kind}")


def chat_line(line: ChatLine) -> Text:
    """A chat message: the speaker in cyan, then the text."""
    return Text.assemble((f"<{line.name}> ", "bold cyan"), line.text)


def room_changes(old: RoomInfo | None, new: RoomInfo) -> list[Text]:
    """Lines for people arriving, leaving, dropping out and coming back, and the status."""
    if old is None or old.room != new.room:
        return []
    lines: list[Text] = []
    for before, after in zip(old.seats, new.seats, strict=False):
        name = after.name or before.name or f"seat {after.seat + 1}"
        if before.kind != after.kind or before.name != after.name:
            if after.kind == "human":
                lines.append(Text(f"{name} took seat {after.seat + 1}", style="dim"))
            elif after.kind == "bot":
                level = after.bot_level or ""
                lines.append(Text(f"{name} ({level} bot) sits in seat {after.seat + 1}", "dim"))
            elif before.kind != "empty":
                lines.append(Text(f"{before.name} left seat {after.seat + 1}", style="dim"))
        elif after.kind == "human" and before.connected != after.connected:
            state = "is back" if after.connected else "lost the connection"
            lines.append(Text(f"{name} {state}", style="dim"))
    if old.locked != new.locked:
        lines.append(Text("The room is locked" if new.locked else "The room is open", "dim"))
    return lines
