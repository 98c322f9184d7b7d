//! Running a mail's commands: each [`Command`] is one call of the games or
//! players service (the very functions the HTTP handlers call), in a
//! transaction of its own, and its result in words for the reply. Nothing
//! of the rules is decided here; a refusal is the service's reason, and the
//! rules' reason for an illegal move.

use std::sync::Arc;

use super::address::ReplyToken;
use super::commands::{Action, Challenge, Command, USAGE};
use super::script::Step;
use crate::clock::TimeControl;
use crate::domain::GameStatus;
use crate::games::{GameError, Games, Lobby, MoveCommand, NewGameCommand, Room};
use crate::players::{PlayerError, Players, VacationRequest};
use crate::rules::catalogue;
use crate::store::Player;
use crate::views::{board, record, timestamp, GameState};

/// The services a mail's commands call.
pub struct Services {
    pub games: Arc<Games>,
    pub players: Arc<Players>,
}

/// The result of one command, for the reply.
#[derive(Clone, Debug)]
pub struct Answer {
    pub ok: bool,
    pub text: String,
    /// The game the command was about.
    pub game: Option<i64>,
}

impl Answer {
    fn ok(text: impl Into<String>) -> Answer {
        Answer {
            ok: true,
            text: text.into(),
            game: None,
        }
    }

    fn refused(reason: impl std::fmt::Display) -> Answer {
        Answer {
            ok: false,
            text: format!("Refused: {reason}."),
            game: None,
        }
    }
}

/// Why a command was refused.
#[derive(Debug, thiserror::Error)]
enum Refusal {
    #[error(transparent)]
    Game(#[from] GameError),
    #[error(transparent)]
    Player(#[from] PlayerError),
}

impl Refusal {
    /// The reason a player reads: the server's own failures are logged,
    /// never shown.
    fn reason(&self) -> String {
        let internal = match self {
            Refusal::Game(e) => e.is_internal(),
            Refusal::Player(e) => matches!(
                e,
                PlayerError::Store(_) | PlayerError::Hashing(_) | PlayerError::Deadlines(_) | PlayerError::Vanished
            ),
        };
        if internal {
            tracing::error!(error = %self, "a mail command failed");
            "the server could not do this now; try again later".to_owned()
        } else {
            self.to_string()
        }
    }
}

/// `help`: every command and how mail play works.
pub fn help() -> String {
    let mut text = String::from(
        "Commands, one per line (a line that is not a command is a comment and goes with your move; \
         a line \"-- \" ends the commands):\n\n",
    );
    for usage in USAGE {
        text.push_str(&format!("  {usage}\n"));
    }
    text.push_str(
        "\nA game is written 12 or #12. #<ply> in a move is the number of moves already played \
         on the board you answer: if the game has moved on, the move is refused and the board \
         sent again. To answer a board the server mailed you, just reply with your move as the \
         first line.",
    );
    text
}

/// "Forza 4 Centrifuga", as the catalogue names the game.
fn title(game: &str, variant: &str) -> String {
    catalogue::find(game, Some(variant))
        .map(|(info, variant)| crate::views::title(info, variant))
        .unwrap_or_else(|_| game.to_owned())
}

/// Whose turn it is, or how the game ended.
fn status_line(state: &GameState, viewer: &Player) -> String {
    let summary = &state.summary;
    match summary.status {
        GameStatus::Active => {
            let name = state.to_move_player.as_deref().unwrap_or("?");
            let next = summary.ply + 1;
            if name == viewer.name {
                format!(
                    "It is your turn (move {next}): reply with your move, or send \"move {} <move> #{}\".",
                    summary.id, summary.ply
                )
            } else {
                format!("It is {name}'s turn (move {next}).")
            }
        }
        GameStatus::Finished => {
            let outcome = summary.outcome.as_ref();
            let reason = outcome
                .and_then(|o| o.get("reason"))
                .and_then(|r| r.as_str())
                .unwrap_or("over");
            let winners: Vec<&str> = outcome
                .and_then(|o| o.get("winners"))
                .and_then(|w| w.as_array())
                .map(|w| {
                    let seat = |s: i64| summary.seats.iter().find(|x| x.seat.index() as i64 == s);
                    w.iter()
                        .filter_map(|s| s.as_i64())
                        .filter_map(seat)
                        .map(|s| s.player.as_deref().unwrap_or(s.colour))
                        .collect()
                })
                .unwrap_or_default();
            match winners.as_slice() {
                [] => format!("The game is over: a draw ({reason})."),
                names => format!("The game is over: {} won ({reason}).", names.join(" and ")),
            }
        }
        GameStatus::Aborted => "The game is aborted.".to_owned(),
        GameStatus::Open => "The game waits for its players to join.".to_owned(),
    }
}

impl Services {
    /// Runs one line of a mail.
    pub async fn run(&self, player: &Player, step: &Step) -> Answer {
        let command = match &step.command {
            Ok(command) => command,
            Err(error) => return Answer::refused(error),
        };
        let result = match command {
            Command::Help => Ok(Answer::ok(help())),
            Command::Games => self.list(player).await,
            Command::Game(id, action) => {
                let id = id.0;
                let mut answer = match self.action(player, id, action, step.message.clone()).await {
                    Ok(answer) => answer,
                    Err(refusal) => self.refusal(player, id, refusal).await,
                };
                answer.game = Some(id);
                return answer;
            }
            Command::Challenge(challenge) => self.challenge(player, challenge).await,
            Command::Vacation(days) => self.vacation(player, *days).await,
        };
        result.unwrap_or_else(|refusal| Answer::refused(refusal.reason()))
    }

    /// A refusal about a game: the reason, and the board as it stands when
    /// the player needs to catch up.
    async fn refusal(&self, player: &Player, id: i64, refusal: Refusal) -> Answer {
        let stale = matches!(&refusal, Refusal::Game(e) if e.current().is_some());
        let mut answer = Answer::refused(refusal.reason());
        if let (true, Refusal::Game(GameError::StalePly { at, asked, .. })) = (stale, &refusal) {
            answer.text = format!(
                "Refused: your mail answered the board at ply {asked}, but the game is at ply {at} now; \
                 nothing was played. The board now:"
            );
        }
        if stale {
            answer
                .text
                .push_str(&format!("\n\n{}", self.board(player, id, None).await));
        }
        answer
    }

    /// The board as text (now or at a ply), with whose turn it is.
    async fn board(&self, player: &Player, id: i64, ply: Option<i64>) -> String {
        let snapshot = match self.games.snapshot(Some(player), id, ply).await {
            Ok(snapshot) => snapshot,
            Err(e) => return Refusal::from(e).reason(),
        };
        let mut text = board::render(&snapshot, ply, false).unwrap_or_default();
        if ply.is_none() {
            if let Ok(state) = self.games.state(Some(player), id, None).await {
                text.push_str(&format!("\n{}", status_line(&state, player)));
            }
        }
        text
    }

    /// A change of the game, answered with `said`, the board and what
    /// follows.
    async fn changed(&self, player: &Player, state: &GameState, said: &str) -> Answer {
        let id = state.summary.id;
        Answer::ok(format!("{said}\n\n{}", self.board(player, id, None).await))
    }

    async fn action(
        &self,
        player: &Player,
        id: i64,
        action: &Action,
        message: Option<String>,
    ) -> Result<Answer, Refusal> {
        let games = &self.games;
        Ok(match action {
            Action::Move { notation, ply } => return self.play(player, id, notation, *ply, message).await,
            Action::Board { ply } => Answer::ok(self.board_at(player, id, *ply).await?),
            Action::Resign => {
                self.changed(player, &games.resign(player, id).await?, "You resigned.")
                    .await
            }
            Action::Draw(yes) => {
                let said = if *yes {
                    "You said yes to a draw."
                } else {
                    "You declined the draw."
                };
                self.changed(player, &games.draw(player, id, *yes).await?, said).await
            }
            Action::Takeback(yes) => {
                let said = if *yes {
                    "You said yes to a takeback."
                } else {
                    "You declined the takeback."
                };
                self.changed(player, &games.takeback(player, id, *yes).await?, said)
                    .await
            }
            Action::Abort => {
                self.changed(player, &games.abort(player, id).await?, "You aborted the game.")
                    .await
            }
            Action::Chat(text) => {
                games.chat(player, id, Room::Players, text).await?;
                Answer::ok("Sent to the players.")
            }
            Action::History => {
                let (game, moves) = games.history(Some(player), id).await?;
                let json = record::json(&game, &moves).map_err(GameError::internal)?;
                Answer::ok(record::text(&json))
            }
            Action::Rules => {
                let state = games.state(Some(player), id, None).await?;
                let (info, variant) = catalogue::find(&state.summary.game, Some(&state.summary.variant))
                    .map_err(GameError::UnknownGame)?;
                Answer::ok(format!(
                    "{}: {}\n{}\n\nHow to write a move: {}",
                    crate::views::title(info, variant),
                    info.summary,
                    variant.summary,
                    info.notation
                ))
            }
            Action::Accept => {
                self.changed(player, &games.join(player, id, None, None).await?, "You joined.")
                    .await
            }
            Action::Decline => {
                games.decline(player, id).await?;
                Answer::ok("You declined the invitation.")
            }
            Action::Queue(line) => Answer::ok(self.queue(player, id, line).await?),
            Action::QueueClear => {
                games.clear_conditional(player, id).await?;
                Answer::ok("Your conditional moves are cleared.")
            }
        })
    }

    /// `queue`: `line` joins the player's tree of conditional moves (a tree
    /// set through the API or by earlier `queue` lines keeps its other
    /// lines); an empty line only shows the tree.
    async fn queue(&self, player: &Player, id: i64, line: &[String]) -> Result<String, Refusal> {
        let mut lines = match self.games.conditional(player, id).await {
            Ok(tree) => tree.lines,
            Err(GameError::NoConditional(_)) => Vec::new(),
            Err(e) => return Err(e.into()),
        };
        if !line.is_empty() {
            lines.push(line.to_vec());
            lines = self.games.set_conditional(player, id, &lines).await?.lines;
        }
        if lines.is_empty() {
            return Ok(format!("You have no conditional moves in #{id}."));
        }
        let mut text = format!("Your conditional moves in #{id}:\n");
        for line in &lines {
            let steps: Vec<String> = line
                .chunks(2)
                .map(|pair| match pair {
                    [theirs, mine] => format!("if {theirs} then {mine}"),
                    [theirs] => format!("if {theirs} then (nothing)"),
                    _ => String::new(),
                })
                .collect();
            text.push_str(&format!("  {}\n", steps.join(", ")));
        }
        Ok(text.trim_end().to_owned())
    }

    async fn board_at(&self, player: &Player, id: i64, ply: Option<i64>) -> Result<String, Refusal> {
        // Refusals (no such game, a ply out of range) are the service's.
        self.games.snapshot(Some(player), id, ply).await?;
        Ok(self.board(player, id, ply).await)
    }

    /// A move at the guarded ply, or else at the game's ply now.
    async fn play(
        &self,
        player: &Player,
        id: i64,
        notation: &str,
        ply: Option<i64>,
        message: Option<String>,
    ) -> Result<Answer, Refusal> {
        let ply = match ply {
            Some(ply) => ply,
            None => self.games.state(Some(player), id, None).await?.summary.ply,
        };
        let command = MoveCommand {
            notation: notation.to_owned(),
            ply,
            message,
        };
        let answer = self.games.play(player, id, command).await?;
        let mut said = format!("You played {}", answer.record.notation);
        if let Some(effect) = &answer.record.effect {
            said.push_str(&format!(" ({effect})"));
        }
        said.push('.');
        if !answer.created {
            said.push_str(" (It was already played: this mail came twice.)");
        }
        Ok(self.changed(player, &answer.game, &said).await)
    }

    /// `games`: the player's games that are not over, whose turn, deadlines.
    async fn list(&self, player: &Player) -> Result<Answer, Refusal> {
        let mut lines = Vec::new();
        for status in [GameStatus::Active, GameStatus::Open] {
            let lobby = Lobby {
                status: Some(status),
                player: Some(player.name.clone()),
                limit: Some(100),
                ..Lobby::default()
            };
            for game in self.games.list(Some(player), lobby).await?.games {
                let state = self.games.state(Some(player), game.id, None).await?;
                let opponents: Vec<&str> = game
                    .seats
                    .iter()
                    .filter_map(|s| s.player.as_deref().or(s.invited.as_deref()))
                    .filter(|n| *n != player.name)
                    .collect();
                let title = title(&game.game, &game.variant);
                let mut line = format!("#{} {title} with {}: ", game.id, opponents.join(", "));
                line.push_str(&status_line(&state, player));
                if let Some(deadline) = state.clock.and_then(|c| c.deadline) {
                    line.push_str(&format!(" Deadline {} UTC.", timestamp(deadline)));
                }
                lines.push(line);
            }
        }
        if lines.is_empty() {
            return Ok(Answer::ok(
                "You have no games going on. Start one with: challenge <player> <game>",
            ));
        }
        Ok(Answer::ok(lines.join("\n")))
    }

    async fn challenge(&self, player: &Player, challenge: &Challenge) -> Result<Answer, Refusal> {
        let command = NewGameCommand {
            game: challenge.game.clone(),
            variant: challenge.variant.clone(),
            seat: None,
            opponents: challenge.opponents.clone(),
            public: Some(!challenge.private),
            time_control: challenge.days.map(|days| TimeControl::Correspondence {
                days_per_move: days,
                bank_days: None,
                bonus_days: None,
                cap_days: None,
            }),
            // Rated, open to any rating: what `POST /games` gives by default.
            ..NewGameCommand::default()
        };
        let state = self.games.create(player, command).await?;
        let id = state.summary.id;
        let title = title(&state.summary.game, &state.summary.variant);
        Ok(Answer {
            game: Some(id),
            ..Answer::ok(format!(
                "New game #{id}: {title} with {}. It starts when {} accepted (\"accept {id}\").",
                challenge.opponents.join(", "),
                if challenge.opponents.len() > 1 {
                    "all have"
                } else {
                    "they have"
                }
            ))
        })
    }

    async fn vacation(&self, player: &Player, days: u32) -> Result<Answer, Refusal> {
        let request = VacationRequest {
            days: i64::from(days),
            start: None,
        };
        let me = self.players.declare_vacation(player, request).await?;
        let until = me.vacation_until.map(timestamp).unwrap_or_default();
        Ok(Answer::ok(format!(
            "You are on vacation until {until} UTC: your clocks stop. {} vacation days left this year.",
            me.vacation_days_left
        )))
    }

    /// A token for replies about `game`, at its ply now, when the player
    /// sits there.
    pub async fn reply_token(&self, player: &Player, game: i64) -> Option<ReplyToken> {
        let state = self.games.state(Some(player), game, None).await.ok()?;
        state.your_seat?;
        Some(ReplyToken {
            game,
            player: player.id,
            ply: state.summary.ply,
        })
    }
}
