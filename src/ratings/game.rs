//! Rating one finished game, purely: who met whom with what score, each
//! player's idle growth since their last rated game, and the Glicko-2 update
//! of each player against every opponent at once (the game is its own rating
//! period). The service feeds it stored ratings and writes what it returns;
//! the rebuild feeds it ratings it computed itself, and gets the same bits.

use crate::domain::Seat;
use crate::store::{PlayerResult, RatingChange, RatingRow, RatingValues};

use super::glicko::{self, Encounter, Rating};
use super::Params;

/// A finished game as rating sees it.
pub struct Finished<'a> {
    pub id: i64,
    pub game: &'a str,
    pub variant: &'a str,
    /// `(seat, player)` of every seat, seat order.
    pub seats: &'a [(Seat, i64)],
    /// The winning seats; none for a draw.
    pub winners: &'a [Seat],
    /// For each seat (by index), the seats it plays against: every other
    /// one, or the other team's in a team game.
    pub opponents: &'a [Vec<Seat>],
    pub ended_at: i64,
}

/// A player's score against an opponent: each winner beat each non-winner,
/// and players on the same side of the result drew.
pub fn score(winners: &[Seat], player: Seat, opponent: Seat) -> f64 {
    match (winners.contains(&player), winners.contains(&opponent)) {
        (true, false) => 1.0,
        (false, true) => 0.0,
        _ => 0.5,
    }
}

/// How the game went for `seat`.
pub fn result(winners: &[Seat], seat: Seat) -> PlayerResult {
    if winners.is_empty() {
        PlayerResult::Draw
    } else if winners.contains(&seat) {
        PlayerResult::Win
    } else {
        PlayerResult::Loss
    }
}

fn values(rating: Rating) -> RatingValues {
    RatingValues {
        rating: rating.rating,
        rd: rating.rd,
        volatility: rating.volatility,
    }
}

fn of_row(row: &RatingRow) -> Rating {
    Rating {
        rating: row.rating,
        rd: row.rd,
        volatility: row.volatility,
    }
}

/// The rating changes of `game`, given each player's stored rating in its
/// variant (`stored`, any order; a player without one starts at the
/// initial rating). Empty when the game cannot be rated: a seat unfilled,
/// or one player in two seats.
pub fn rate(params: &Params, game: &Finished, stored: &[RatingRow]) -> Vec<RatingChange> {
    let players: Vec<i64> = game.seats.iter().map(|(_, p)| *p).collect();
    let distinct = players.iter().collect::<std::collections::HashSet<_>>().len();
    if players.len() < 2 || distinct != players.len() || game.opponents.len() != players.len() {
        return Vec::new();
    }
    let row_of = |player: i64| stored.iter().find(|r| r.player_id == player);
    let before: Vec<Rating> = players
        .iter()
        .map(|&p| row_of(p).map_or(params.initial, of_row))
        .collect();
    // Each player's rating as the game found it: grown by the idle time
    // since their last rated game.
    let current: Vec<Rating> = players
        .iter()
        .zip(&before)
        .map(|(&p, &rating)| match row_of(p) {
            Some(row) => glicko::idle(
                rating,
                params.periods(game.ended_at - row.last_played),
                params.initial.rd,
            ),
            None => rating,
        })
        .collect();
    let ordinal = stored.iter().map(|r| r.last_order).max().unwrap_or(0) + 1;
    let seat_index = |seat: Seat| game.seats.iter().position(|(s, _)| *s == seat);
    game.seats
        .iter()
        .enumerate()
        .map(|(i, &(seat, player))| {
            let encounters: Vec<Encounter> = game.opponents[i]
                .iter()
                .filter_map(|&o| seat_index(o).map(|j| (o, j)))
                .map(|(o, j)| Encounter {
                    opponent: current[j],
                    score: score(game.winners, seat, o),
                })
                .collect();
            let after = glicko::update(current[i], &encounters, params.tau);
            RatingChange {
                game_id: game.id,
                player_id: player,
                game: game.game.to_owned(),
                variant: game.variant.to_owned(),
                number: row_of(player).map_or(0, |r| r.games) + 1,
                ordinal,
                result: result(game.winners, seat),
                before: values(before[i]),
                after: values(after),
                played_at: game.ended_at,
            }
        })
        .collect()
}

/// The rating row `change` leaves behind, from the row before it (`None`
/// for a first game).
pub fn apply(change: &RatingChange, previous: Option<&RatingRow>, name: &str) -> RatingRow {
    let (wins, losses, draws) = change.result.counts();
    let (w, l, d) = previous.map_or((0, 0, 0), |r| (r.wins, r.losses, r.draws));
    RatingRow {
        player_id: change.player_id,
        name: name.to_owned(),
        bot: previous.is_some_and(|r| r.bot),
        game: change.game.clone(),
        variant: change.variant.clone(),
        rating: change.after.rating,
        rd: change.after.rd,
        volatility: change.after.volatility,
        games: change.number,
        wins: w + wins,
        losses: l + losses,
        draws: d + draws,
        last_played: change.played_at,
        last_order: change.ordinal,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seat(n: u8) -> Seat {
        Seat::from(n)
    }

    fn params() -> Params {
        Params::default()
    }

    fn everyone_else(seats: u8) -> Vec<Vec<Seat>> {
        (0..seats)
            .map(|s| (0..seats).filter(|o| *o != s).map(seat).collect())
            .collect()
    }

    fn finished<'a>(seats: &'a [(Seat, i64)], winners: &'a [Seat], opponents: &'a [Vec<Seat>]) -> Finished<'a> {
        Finished {
            id: 9,
            game: "focus",
            variant: "four",
            seats,
            winners,
            opponents,
            ended_at: 1000,
        }
    }

    #[test]
    fn winners_beat_non_winners_and_sides_draw_among_themselves() {
        let winners = [seat(0), seat(2)];
        assert_eq!(score(&winners, seat(0), seat(1)), 1.0);
        assert_eq!(score(&winners, seat(1), seat(0)), 0.0);
        assert_eq!(score(&winners, seat(0), seat(2)), 0.5);
        assert_eq!(score(&winners, seat(1), seat(3)), 0.5);
        assert_eq!(score(&[], seat(1), seat(3)), 0.5);
        assert_eq!(result(&winners, seat(2)), PlayerResult::Win);
        assert_eq!(result(&winners, seat(3)), PlayerResult::Loss);
        assert_eq!(result(&[], seat(3)), PlayerResult::Draw);
    }

    /// A newcomer's rating after one period against newcomers, with these
    /// scores.
    fn newcomer_after(scores: &[f64]) -> glicko::Rating {
        let new = params().initial;
        let encounters: Vec<Encounter> = scores.iter().map(|&score| Encounter { opponent: new, score }).collect();
        glicko::update(new, &encounters, params().tau)
    }

    /// Four seats, one winner: the winner is rated as beating three
    /// newcomers in one period, each loser as losing to the winner and
    /// drawing the other two.
    #[test]
    fn a_multi_seat_game_is_one_period_against_every_opponent() {
        let seats = [(seat(0), 1), (seat(1), 2), (seat(2), 3), (seat(3), 4)];
        let opponents = everyone_else(4);
        let changes = rate(&params(), &finished(&seats, &[seat(1)], &opponents), &[]);
        assert_eq!(changes.len(), 4);
        let won = newcomer_after(&[1.0; 3]);
        assert_eq!(changes[1].after.rating, won.rating);
        let lost = newcomer_after(&[0.0, 0.5, 0.5]);
        assert_eq!(changes[0].after.rating, lost.rating);
        assert!(changes.iter().all(|c| c.number == 1 && c.ordinal == 1));
        assert_eq!(changes[0].result, PlayerResult::Loss);
    }

    /// In team Focus each player meets only the other team, with their
    /// team's result: both winners rise alike, both losers fall alike.
    #[test]
    fn a_team_game_rates_each_player_against_both_opponents() {
        let seats = [(seat(0), 1), (seat(1), 2), (seat(2), 3), (seat(3), 4)];
        let opponents = vec![
            vec![seat(1), seat(3)],
            vec![seat(0), seat(2)],
            vec![seat(1), seat(3)],
            vec![seat(0), seat(2)],
        ];
        let changes = rate(&params(), &finished(&seats, &[seat(0), seat(2)], &opponents), &[]);
        let won = newcomer_after(&[1.0; 2]);
        assert_eq!(changes[0].after, changes[2].after);
        assert_eq!(changes[0].after.rating, won.rating);
        assert_eq!(changes[1].after, changes[3].after);
        assert!(changes[1].after.rating < 1500.0);
    }

    #[test]
    fn idle_time_grows_the_deviation_before_the_game() {
        let seats = [(seat(0), 1), (seat(1), 2)];
        let opponents = everyone_else(2);
        let row = |player: i64, last_played: i64| RatingRow {
            player_id: player,
            name: String::new(),
            bot: false,
            game: "focus".into(),
            variant: "four".into(),
            rating: 1600.0,
            rd: 80.0,
            volatility: 0.06,
            games: 4,
            wins: 2,
            losses: 2,
            draws: 0,
            last_played,
            last_order: 7,
        };
        let params = params();
        let winners = [seat(0)];
        let game = finished(&seats, &winners, &opponents);
        let fresh = rate(&params, &game, &[row(1, 1000), row(2, 1000)]);
        let week = params.period_ms;
        let idle = rate(&params, &game, &[row(1, 1000 - week), row(2, 1000)]);
        // A week away widens the deviation, so the same win moves more.
        assert!(idle[0].after.rating > fresh[0].after.rating);
        assert_eq!(idle[0].before.rd, 80.0, "the stored rating is what it was before");
        assert_eq!((fresh[0].number, fresh[0].ordinal), (5, 8));
        let applied = apply(&fresh[0], Some(&row(1, 1000)), "ann");
        assert_eq!((applied.games, applied.wins, applied.losses), (5, 3, 2));
    }

    #[test]
    fn a_game_with_an_empty_or_doubled_seat_is_not_rated() {
        let opponents = everyone_else(2);
        assert!(rate(
            &params(),
            &finished(&[(seat(0), 1), (seat(1), 1)], &[], &opponents),
            &[]
        )
        .is_empty());
        assert!(rate(&params(), &finished(&[(seat(0), 1)], &[], &opponents[..1]), &[]).is_empty());
    }
}
