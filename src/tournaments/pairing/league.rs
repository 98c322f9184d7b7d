//! A league's groups, Little Golem style: group 0 is the top; each season
//! every group plays a round robin; then the top two of each group but the
//! first go up, the bottom two of each group but the last go down, players
//! who left drop out and newcomers join the lowest group.
//!
//! Groups hold `size` players when they start; movement keeps each
//! group's size, a player who left leaves a smaller group, and the lowest
//! group splits when newcomers make it too big (a lone player left over
//! joins the group above, since nobody plays alone).

/// How many go up from each group, and down: two, or half a small group.
const MOVERS: usize = 2;

/// The first season's groups: `players` in seed order, cut into groups.
pub fn first_season(players: &[i64], size: usize) -> Vec<Vec<i64>> {
    cut(players, size)
}

/// The next season's groups. `groups` are the past season's, each ranked
/// by its final standings (best first), without the players who left;
/// `newcomers` join at the bottom, in the order they came.
pub fn next_season(groups: &[Vec<i64>], newcomers: &[i64], size: usize) -> Vec<Vec<i64>> {
    let last = groups.len().saturating_sub(1);
    // Each player's place: (group, from which group, rank there). Within
    // a group, those relegated from above come first, then those staying,
    // then those promoted from below.
    let mut placed: Vec<((usize, usize, usize), i64)> = Vec::new();
    for (g, group) in groups.iter().enumerate() {
        let movers = MOVERS.min(group.len() / 2);
        for (rank, &player) in group.iter().enumerate() {
            let target = if g > 0 && rank < movers {
                g - 1
            } else if g < last && rank >= group.len() - movers {
                g + 1
            } else {
                g
            };
            placed.push(((target, g, rank), player));
        }
    }
    for (i, &player) in newcomers.iter().enumerate() {
        placed.push(((last, usize::MAX, i), player));
    }
    placed.sort();
    let mut next: Vec<Vec<i64>> = Vec::new();
    for ((target, _, _), player) in placed {
        if next.len() <= target {
            next.resize(target + 1, Vec::new());
        }
        next[target].push(player);
    }
    let lowest = next.pop().unwrap_or_default();
    next.extend(cut(&lowest, size));
    merge_small(next)
}

/// `players` in order, in groups of `size`.
fn cut(players: &[i64], size: usize) -> Vec<Vec<i64>> {
    merge_small(players.chunks(size.max(2)).map(<[i64]>::to_vec).collect())
}

/// Groups of fewer than two join the group above (or go, if none).
fn merge_small(groups: Vec<Vec<i64>>) -> Vec<Vec<i64>> {
    let mut merged: Vec<Vec<i64>> = Vec::with_capacity(groups.len());
    for group in groups {
        match merged.last_mut() {
            Some(above) if group.len() < 2 => above.extend(group),
            _ => merged.push(group),
        }
    }
    merged.retain(|g| g.len() >= 2);
    merged
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_season_cuts_seed_order_into_groups() {
        let players: Vec<i64> = (1..=23).collect();
        let groups = first_season(&players, 10);
        assert_eq!(groups.len(), 3);
        assert_eq!(groups[0], (1..=10).collect::<Vec<_>>());
        assert_eq!(groups[2], vec![21, 22, 23]);
        // A lone player joins the group above.
        let groups = first_season(&(1..=11).collect::<Vec<_>>(), 10);
        assert_eq!(groups, vec![(1..=11).collect::<Vec<_>>()]);
        assert!(first_season(&[1], 10).is_empty());
    }

    #[test]
    fn the_top_two_go_up_and_the_bottom_two_down() {
        let groups = vec![vec![1, 2, 3, 4], vec![5, 6, 7, 8], vec![9, 10, 11, 12]];
        let next = next_season(&groups, &[], 4);
        assert_eq!(next, vec![vec![1, 2, 5, 6], vec![3, 4, 9, 10], vec![7, 8, 11, 12]]);
    }

    #[test]
    fn newcomers_join_the_lowest_group_which_splits_when_full() {
        // Group 1 has three (someone left): one goes up; the newcomers join
        // it and it splits.
        let groups = vec![vec![1, 2, 3, 4], vec![5, 6, 7]];
        let next = next_season(&groups, &[20, 21], 4);
        assert_eq!(next, vec![vec![1, 2, 5], vec![3, 4, 6, 7], vec![20, 21]]);
        // One newcomer too many stays in the lowest group.
        let next = next_season(&[vec![1, 2, 3, 4]], &[9], 4);
        assert_eq!(next, vec![vec![1, 2, 3, 4, 9]]);
    }
}
