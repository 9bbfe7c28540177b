"""The lobby and the two tables as text for a panel about 48 columns wide and 14 rows high.

Each function takes the latest view (``None`` before the first game), the room info and this
client's seat (``None`` for a spectator), and returns one :class:`rich.text.Text`.
"""

from __future__ import annotations

from rich.text import Text

from clients.terminal.cards import BACK, NONE, card_text, cards_text
from clients.terminal.describe import is_, seat_names
from clients.terminal.house import rules_text
from protocol.messages import RoomInfo, State
from protocol.views import SheepsheadView, ShitheadView, TrickCard

NAME_WIDTH = 10
TURN = Text("▶ ", style="bold yellow")
IDLE = Text("  ")


def _short(name: str, width: int = NAME_WIDTH) -> str:
    return name if len(name) <= width else name[: width - 1] + "…"


def _names(info: RoomInfo | None, me: int | None, players: int) -> list[str]:
    return [_short(n) for n in seat_names(info, me, players)]


def _name(name: str, me: bool, width: int = NAME_WIDTH) -> Text:
    return Text(_short(name, width).ljust(width), style="bold green" if me else "bold")


_CONNECTION = {
    "online": ("● online", "green"),
    "reconnecting": ("◌ reconnecting…", "bold red"),
    "offline": ("✗ offline", "bold red"),
}


def top_line(
    info: RoomInfo | None,
    state: State | None,
    me: int | None,
    connection: str,
    now: float,
    width: int = 78,
) -> Text:
    """The header: room, game, status, game or hand number, watching, whose turn, the time left
    for the turn (from the state's ``deadline``), the connection. Parts of least importance are
    left out until it fits ``width`` columns."""
    parts: list[tuple[int, str, str]] = []  # (importance: higher stays longer, text, style)
    if info is None:
        parts.append((9, "Joining…", ""))
    else:
        parts += [(9, info.room, "bold reverse"), (8, f" {info.game.capitalize()}", "")]
        if info.status != "playing":
            parts.append((5, f" · {info.status}", ""))
        if info.match_length:
            played = info.games_played + (1 if info.status in ("playing", "paused") else 0)
            parts.append((2, f" · hand {max(1, played)}/{info.match_length}", ""))
        elif info.games_played or info.status != "lobby":
            parts.append((2, f" · game {info.games_played + (info.status != 'between')}", ""))
        if info.hints:
            parts.append((3, " · hints on", "cyan"))
        if me is None:
            parts.append((3, " · watching", "italic"))
    if state is not None and state.view["phase"] != "over":
        to_act = state.view["to_act"] or []
        if me is not None and me in to_act and state.view["legal"]:
            parts.append((7, " · YOUR TURN", "bold yellow"))
        elif to_act and state.view["phase"] != "swap":
            names = _names(info, me, state.view["players"])
            parts.append((4, f" · {names[to_act[0]]} to play", ""))
        if state.deadline is not None:
            left = max(0, int(state.deadline - now))
            # plain digits: clock symbols are missing or double width in many terminals
            clock = f" · {left // 60}:{left % 60:02d} left"
            parts.append((6, clock, "bold red" if left < 10 else "bold"))
    text, style = _CONNECTION[connection]
    parts.append((9, f"  {text}", style))
    while sum(len(p[1]) for p in parts) > width:
        parts.remove(min(parts, key=lambda p: p[0]))
    return Text.assemble(*((t, st) for _, t, st in parts))


def lobby(info: RoomInfo, me: int | None) -> Text:
    """Before the first game: who sits where, and what the room is set to."""
    game = info.game.capitalize()
    out = Text.assemble(
        ("Room ", "dim"), (info.room, "bold reverse"), f"  {game}, {len(info.seats)} seats\n"
    )
    out.append("Share the code: others join it or watch it.\n\n", style="dim")
    for s in info.seats:
        mark = Text("★ ", "yellow") if s.host else IDLE
        line = Text.assemble(mark, f"{s.seat + 1}  ")
        if s.kind == "empty":
            line.append("(empty)", style="dim")
        else:
            line.append_text(_name(s.name or "?", s.seat == me, 14))
            if s.kind == "bot":
                line.append(f"{s.bot_level} bot", style="cyan")
            elif not s.connected:
                line.append("away", style="red")
            elif s.seat == me:
                line.append("you", style="green")
        out.append_text(line)
        out.append("\n")
    timer = f"{info.turn_timer}s a turn" if info.turn_timer else "no turn timer"
    lock = "locked" if info.locked else "open"
    out.append(f"\n{info.spectators} watching · {lock} · {timer}\n", style="dim")
    # SH-7.1, SS-10.1: the house rules, shown to everyone before the first game
    out.append(f"Rules: {rules_text(info.options.model_dump())}\n", style="cyan")
    host = any(s.host and s.seat == me for s in info.seats)
    if host:
        out.append("You are the host: your commands are below.", style="cyan")
    else:
        out.append("Waiting for the host to start the game.", style="dim")
    return out


def shithead(view: ShitheadView, info: RoomInfo | None, me: int | None) -> Text:
    """Every seat's hand size, face-up and face-down cards and losses; the pile and stock."""
    players = view["players"]
    names = _names(info, me, players)
    totals = info.totals if info is not None else [0] * players
    to_act = set(view["to_act"] or [])
    columns = "  " + "name".ljust(NAME_WIDTH) + "hand   face up      down  lost\n"
    out = Text.assemble((columns, "dim"))
    for i, s in enumerate(view["seats"]):
        line = Text.assemble(TURN if i in to_act else IDLE, _name(names[i], i == me))
        line.append(f"{s['hand_count']:>3}   ")
        up = cards_text(s["face_up"]) if s["face_up"] else NONE.copy()
        line.append_text(up)
        line.append(" " * max(1, 13 - len(up.plain)))
        line.append_text(Text("").join(BACK if d else NONE for d in s["face_down"]))
        line.append(" " * max(1, 6 - len(s["face_down"])))
        line.append(f"{totals[i] if i < len(totals) else 0:>2}")
        if s["place"]:
            line.append(f" out {_ordinal(s['place'])}", style="green")
        elif view["phase"] == "swap" and s["ready"]:
            line.append(" ready", style="dim")
        out.append_text(line)
        out.append("\n")
    pile: list[str] = view["pile"] or []
    out.append(f"\nPile {len(pile):>2}: ", style="bold")
    if pile:
        shown = pile[-6:]
        if len(pile) > 6:
            out.append("… ", style="dim")
        out.append_text(cards_text(shown[:-1]))
        out.append(" " if len(shown) > 1 else "")
        out.append_text(card_text(shown[-1], "reverse"))
    else:
        out.append("empty", style="dim")
    to_beat = view["to_beat"]
    if to_beat is not None and pile and to_beat != pile[-1]:  # under glass 3s (SH-7.4)
        out.append_text(Text.assemble(("  to beat ", "yellow"), card_text(to_beat)))
    out.append(f"\nStock {view['stock']} · burned {view['burned']}\n", style="dim")
    house = rules_text(view["options"])
    if house != "book rules":  # SH-7.5: the rules in force, on a line of their own
        out.append(f"{house}\n", style="cyan")
    out.append_text(_shithead_status(view, names, me))
    out.append_text(rating_changes(info, names))
    return out


def rating_changes(info: RoomInfo | None, names: list[str], width: int = 46) -> Text:
    """A rated room's last rated game: each rated seat's rating after it and the change,
    wrapped to ``width`` (empty until the server recorded it, and in an unrated room)."""
    if info is None or not info.ratings:
        return Text()
    out = Text("\nRatings:", style="bold")
    column = len("Ratings:")
    for r in info.ratings:
        name = names[r.seat] if r.seat < len(names) else "?"
        change = f"{'+' if r.delta > 0 else ''}{r.delta}"
        entry = f" {name} {r.after} {change}"
        if column + len(entry) > width:
            out.append("\n")
            column = 0
        out.append(entry[: -len(change)])
        out.append(change, style="green" if r.delta > 0 else "red" if r.delta else "")
        column += len(entry)
    return out


def _ordinal(n: int) -> str:
    return f"{n}{ {1: 'st', 2: 'nd', 3: 'rd'}.get(n, 'th') }"


def _shithead_status(view: ShitheadView, names: list[str], me: int | None) -> Text:
    phase = view["phase"]
    if phase == "over":
        outcome = view["outcome"]
        loser = outcome["loser"] if outcome else None
        who = names[loser] if isinstance(loser, int) else "?"
        return Text(f"\nGame over: {who} {is_(who)} the shithead.", style="bold yellow")
    if phase == "swap":
        if me is not None and me in (view["to_act"] or []):
            return Text("\nSwap hand and face-up cards, then Ready.", style="cyan")
        return Text("\nSwap phase: waiting for everyone to be ready.", style="dim")
    turn = view["turn"]
    source = {"hand": "hand", "face_up": "face-up cards", "face_down": "face-down cards"}
    where = source.get(view["source"] or "", "")
    if turn == me:
        return Text(f"\nYour turn: play from your {where}.", style="bold cyan")
    who = names[turn] if isinstance(turn, int) else "?"
    return Text(f"\n{who} to play from {where}.", style="dim")


def sheepshead(
    view: SheepsheadView,
    info: RoomInfo | None,
    me: int | None,
    hands: str = "",
    last: bool = False,
) -> Text:
    """The deal, each seat's cards held, tricks, points and total; the trick on the table
    (``last``: the last finished trick's cards in its place, once there is one)."""
    names = _names(info, me, 5)
    totals = info.totals if info is not None else [0] * 5
    to_act = set(view["to_act"] or [])
    picker, partner = view["picker"], view["partner"]
    head = Text(hands, style="dim")
    if view["leaster"]:
        head.append(" Leaster: fewest points wins", style="bold")
    elif picker is not None:
        head.append(f" Picker {names[picker]}")
        if view["alone"]:
            head.append(", alone")
        elif view["jd_partner"]:  # SS-10.2: the jack's holder (never named before JD is played)
            head.append(", J♦ partner")
        elif view["called"]:
            head.append_text(Text.assemble(", called ", card_text(view["called"])))
    # SS-10.6: the stakes and who raised them (a line of their own); the house rules until
    # someone picks
    stakes = Text(f"\nStakes ×{view['multiplier']}" if view["multiplier"] > 1 else "")
    if view["cracked"] is not None:
        stakes.append(f"{' ·' if stakes else chr(10)} cracked by {names[view['cracked']]}")
    if view["recracked"] is not None:
        stakes.append(", re-cracked")
    stakes.stylize("bold magenta")
    head.append_text(stakes)
    house = rules_text(view["options"])
    if picker is None and not view["leaster"] and house != "book rules":
        head.append(f"\n{house}", style="cyan")
    columns = "  " + "name".ljust(NAME_WIDTH) + " role   held tricks pts total\n"
    out = Text.assemble(head, "\n", (columns, "dim"))
    for i in range(5):
        role = "picker" if i == picker else "partner" if i == partner else ""
        if i == me and view["you_are_partner"]:
            role = "partner"
        if i == view["dealer"] and not role:
            role = "dealer"
        line = Text.assemble(TURN if i in to_act else IDLE, _name(names[i], i == me))
        line.append(f" {role:<7}", style="yellow" if role in ("picker", "partner") else "dim")
        line.append(f"{view['hand_counts'][i]:>4} {view['tricks_won'][i]:>6}")
        line.append(f" {view['visible_points'][i]:>3} {totals[i] if i < len(totals) else 0:>+5}\n")
        out.append_text(line)
    out.append_text(_trick(view, names, last))
    out.append_text(_sheepshead_status(view, names, me))
    if view["phase"] == "over":
        out.append_text(rating_changes(info, names))
    return out


def _trick(view: SheepsheadView, names: list[str], last: bool = False) -> Text:
    tricks = view["tricks"] or []
    out = Text()
    if last and tricks:  # the finished trick, looked back at (key l)
        done = tricks[-1]
        out.append(f"\nLast trick: {names[done['winner']]} won {done['points']} pts", style="bold")
        out.append("\n         ")  # its cards below, as the current trick's stand
        out.append_text(_plays(done["cards"], names))
        out.append("\n(l: back to the table)", style="dim")
        return out
    trick = view["trick"]
    cards = trick["cards"]
    if view["phase"] == "play" or cards:
        out.append(f"\nTrick {trick['number'] or '-'}: ", style="bold")
        out.append_text(_plays(cards, names))
    if tricks:
        done = tricks[-1]
        out.append(f"\nLast trick: {names[done['winner']]} won {done['points']} pts", style="dim")
        out.append(" (l: show)", style="dim")
    return out


def _plays(cards: list[TrickCard], names: list[str]) -> Text:
    """Each seat's card of a trick, two to a row (long names stay inside the panel)."""
    out = Text()
    for n, played in enumerate(cards):
        if n and n % 2 == 0:
            out.append("\n         ")
        out.append(f"{names[played['seat']]} ")
        out.append_text(card_text(played["card"]))
        out.append("  ")
    return out


def _sheepshead_status(view: SheepsheadView, names: list[str], me: int | None) -> Text:
    phase = view["phase"]
    extra = Text()
    blind, buried = view["blind"], view["buried"]
    if blind:
        extra = Text.assemble("\nBlind ", cards_text(blind))
        if buried:
            extra.append_text(Text.assemble(" · buried ", cards_text(buried)))
    if phase == "over":
        result = view["result"]
        if result is not None and result["row"] == "thrown_in":  # SS-10.3 doubler
            msg = "\nHand over: thrown in, the next hand pays double"
        elif result is not None and result["leaster"]:
            won = result["leaster_winner"]
            msg = f"\nHand over: leaster won by {names[won] if isinstance(won, int) else '?'}"
        else:
            sides = (result["picker_points"], result["defender_points"]) if result else ("?", "?")
            msg = f"\nHand over: picker's side {sides[0]}, defenders {sides[1]}"
        return Text.assemble(extra, (msg, "bold yellow"))
    prompts = {
        "pick": "pick up the blind or pass",
        "bury": "select two cards to bury",
        "call": "call a partner, or go alone",
        "crack": "crack (double the stakes), or not",
        "play": "play a card",
    }
    if me is not None and me in (view["to_act"] or []):
        return Text.assemble(extra, (f"\nYour turn: {prompts.get(phase, phase)}.", "bold cyan"))
    waiting = [names[s] for s in view["to_act"] or []]
    return Text.assemble(extra, (f"\nWaiting for {', '.join(waiting) or '…'}.", "dim"))
