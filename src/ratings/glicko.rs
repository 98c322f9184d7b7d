//! The Glicko-2 rating system, as Mark Glickman's "Example of the Glicko-2
//! system" describes it: one rating period's update of a player against
//! the opponents they met in it ([`update`]), and the growth of a rating
//! deviation over idle periods ([`idle`]).
//!
//! Pure arithmetic on `f64`, with no clock and no I/O: the same inputs give
//! the same bits on every run, which is what lets `tavoliere ratings
//! rebuild` arrive at exactly the stored values. Ratings are on the Glicko
//! scale (1500 centred); the Glicko-2 scale is internal.

/// Glickman's conversion factor between the two scales (400 / ln 10).
const SCALE: f64 = 173.7178;
/// The Glicko scale's centre.
const CENTRE: f64 = 1500.0;
/// Convergence tolerance of the volatility iteration (Glickman's ε).
const EPSILON: f64 = 0.000_001;
/// The volatility iteration converges in a few dozen steps on any sane
/// input; the bound keeps a NaN or a wild value from looping forever.
const MAX_ITERATIONS: usize = 200;

/// A player's rating on the Glicko scale.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rating {
    pub rating: f64,
    /// Rating deviation.
    pub rd: f64,
    pub volatility: f64,
}

/// One game of a rating period: the opponent as they stood before it, and
/// the player's score against them (1 win, 0.5 draw, 0 loss).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Encounter {
    pub opponent: Rating,
    pub score: f64,
}

fn g(phi: f64) -> f64 {
    1.0 / (1.0 + 3.0 * phi * phi / (std::f64::consts::PI * std::f64::consts::PI)).sqrt()
}

fn expected(mu: f64, mu_j: f64, phi_j: f64) -> f64 {
    1.0 / (1.0 + (-g(phi_j) * (mu - mu_j)).exp())
}

/// `player`'s rating after one period in which they met `results`, with
/// the system constant `tau`. A period without games only grows the
/// deviation (Glickman's step for players who did not compete).
pub fn update(player: Rating, results: &[Encounter], tau: f64) -> Rating {
    let mu = (player.rating - CENTRE) / SCALE;
    let phi = player.rd / SCALE;
    let sigma = player.volatility;
    if results.is_empty() {
        return idle(player, 1.0, f64::INFINITY);
    }
    // Step 3 and 4: the estimated variance and the improvement.
    let (mut inverse_v, mut sum) = (0.0, 0.0);
    for r in results {
        let mu_j = (r.opponent.rating - CENTRE) / SCALE;
        let phi_j = r.opponent.rd / SCALE;
        let (g_j, e_j) = (g(phi_j), expected(mu, mu_j, phi_j));
        inverse_v += g_j * g_j * e_j * (1.0 - e_j);
        sum += g_j * (r.score - e_j);
    }
    let v = 1.0 / inverse_v;
    let delta = v * sum;
    // Step 5: the new volatility.
    let sigma = new_volatility(phi, sigma, v, delta, tau);
    // Step 6 and 7: the new deviation and rating.
    let phi_star = (phi * phi + sigma * sigma).sqrt();
    let phi = 1.0 / (1.0 / (phi_star * phi_star) + 1.0 / v).sqrt();
    let mu = mu + phi * phi * sum;
    Rating {
        rating: SCALE * mu + CENTRE,
        rd: SCALE * phi,
        volatility: sigma,
    }
}

/// Glickman's step 5: the volatility that solves `f(x) = 0`, by the
/// Illinois algorithm.
fn new_volatility(phi: f64, sigma: f64, v: f64, delta: f64, tau: f64) -> f64 {
    let a = (sigma * sigma).ln();
    let (phi2, delta2) = (phi * phi, delta * delta);
    let f = |x: f64| {
        let ex = x.exp();
        ex * (delta2 - phi2 - v - ex) / (2.0 * (phi2 + v + ex).powi(2)) - (x - a) / (tau * tau)
    };
    let mut big_a = a;
    let mut big_b = if delta2 > phi2 + v {
        (delta2 - phi2 - v).ln()
    } else {
        let mut k = 1.0;
        while f(a - k * tau) < 0.0 && k < MAX_ITERATIONS as f64 {
            k += 1.0;
        }
        a - k * tau
    };
    let (mut f_a, mut f_b) = (f(big_a), f(big_b));
    for _ in 0..MAX_ITERATIONS {
        if (big_b - big_a).abs() <= EPSILON {
            break;
        }
        let big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a);
        let f_c = f(big_c);
        if f_c * f_b <= 0.0 {
            big_a = big_b;
            f_a = f_b;
        } else {
            f_a /= 2.0;
        }
        big_b = big_c;
        f_b = f_c;
    }
    (big_a / 2.0).exp()
}

/// `player` after `periods` rating periods without a game (fractions
/// allowed): the deviation grows as Glickman's step 6 makes it grow once a
/// period, `φ² + t·σ²`, and never beyond `max_rd` (a newcomer's).
pub fn idle(player: Rating, periods: f64, max_rd: f64) -> Rating {
    if periods <= 0.0 || !periods.is_finite() {
        return player;
    }
    let phi = player.rd / SCALE;
    let grown = (phi * phi + periods * player.volatility * player.volatility).sqrt() * SCALE;
    Rating {
        rd: grown.min(max_rd),
        ..player
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rating(rating: f64, rd: f64) -> Rating {
        Rating {
            rating,
            rd,
            volatility: 0.06,
        }
    }

    fn close(actual: f64, expected: f64, within: f64) -> bool {
        (actual - expected).abs() <= within
    }

    /// Glickman's worked example, to the digits his paper prints. The
    /// paper rounds as it goes (μ′ = −0.2069 gives its 1464.06); carried
    /// exactly, the rating is 1464.0507, within a hundredth of it.
    #[test]
    fn glickmans_example() {
        let player = rating(1500.0, 200.0);
        let results = [
            Encounter {
                opponent: rating(1400.0, 30.0),
                score: 1.0,
            },
            Encounter {
                opponent: rating(1550.0, 100.0),
                score: 0.0,
            },
            Encounter {
                opponent: rating(1700.0, 300.0),
                score: 0.0,
            },
        ];
        let after = update(player, &results, 0.5);
        assert!(close(after.rating, 1464.06, 0.01), "{after:?}");
        assert!(close(after.rd, 151.52, 0.005), "{after:?}");
        assert!(close(after.volatility, 0.05999, 0.000_01), "{after:?}");
    }

    #[test]
    fn a_win_raises_and_a_loss_lowers_and_both_narrow_the_deviation() {
        let (a, b) = (rating(1500.0, 350.0), rating(1500.0, 350.0));
        let won = update(
            a,
            &[Encounter {
                opponent: b,
                score: 1.0,
            }],
            0.5,
        );
        let lost = update(
            b,
            &[Encounter {
                opponent: a,
                score: 0.0,
            }],
            0.5,
        );
        assert!(won.rating > 1500.0 && lost.rating < 1500.0);
        // Symmetric players move symmetrically.
        assert!(close(won.rating - 1500.0, 1500.0 - lost.rating, 1e-9));
        assert!(won.rd < 350.0 && close(won.rd, lost.rd, 1e-9));
        let drawn = update(
            a,
            &[Encounter {
                opponent: b,
                score: 0.5,
            }],
            0.5,
        );
        assert!(close(drawn.rating, 1500.0, 1e-9) && drawn.rd < 350.0);
    }

    #[test]
    fn idle_periods_grow_the_deviation_by_glickos_step() {
        let player = rating(1600.0, 50.0);
        let phi = 50.0 / SCALE;
        // One period is exactly Glickman's step 6 for a player who sat out.
        let one = idle(player, 1.0, 350.0);
        assert!(close(one.rd, (phi * phi + 0.06 * 0.06).sqrt() * SCALE, 1e-9));
        assert_eq!((one.rating, one.volatility), (1600.0, 0.06));
        // Fractions count: half a period grows it by half the variance.
        let half = idle(player, 0.5, 350.0);
        assert!(close(half.rd, (phi * phi + 0.5 * 0.06 * 0.06).sqrt() * SCALE, 1e-9));
        assert!(half.rd > 50.0 && half.rd < one.rd);
        // No time, no growth; a long absence stops at a newcomer's.
        assert_eq!(idle(player, 0.0, 350.0), player);
        assert_eq!(idle(player, 1e9, 350.0).rd, 350.0);
        // A period without games is one idle period.
        assert!(close(update(player, &[], 0.5).rd, one.rd, 1e-9));
    }

    #[test]
    fn the_same_inputs_give_the_same_bits() {
        let player = rating(1523.25, 181.5);
        let results = [Encounter {
            opponent: rating(1611.0, 90.0),
            score: 0.5,
        }];
        let first = update(player, &results, 0.5);
        let second = update(player, &results, 0.5);
        assert_eq!(first.rating.to_bits(), second.rating.to_bits());
        assert_eq!(first.rd.to_bits(), second.rd.to_bits());
        assert_eq!(first.volatility.to_bits(), second.volatility.to_bits());
    }
}
