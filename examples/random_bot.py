#!/usr/bin/env python3
"""A complete Tavoliere bot: plays a uniformly random legal move in every game.

Python 3, standard library only; it uses nothing but the public HTTP API
(BOTS.md). It follows the account's own event stream by long poll, accepts
every invitation, answers `your_turn` with a random legal move, declines
draw and takeback offers, and resumes after `--after` (the last event it
handled, printed as it goes) when restarted.

    python3 examples/random_bot.py --url http://127.0.0.1:8080 --token TOKEN

Register the account once as a bot account:
    curl -X POST $URL/api/v1/players -H 'content-type: application/json' \\
      -d '{"name": "my-bot", "password": "…", "bot": true}'
"""
import argparse
import json
import random
import sys
import time
import urllib.error
import urllib.request


class Api:
    def __init__(self, url, token):
        self.base = url.rstrip("/") + "/api/v1"
        self.token = token

    def call(self, method, path, body=None, timeout=40):
        """The answer's status and JSON body; waits out 429s and retries
        lost connections (every request here is safe to repeat)."""
        data = None if body is None else json.dumps(body).encode()
        while True:
            request = urllib.request.Request(self.base + path, data=data, method=method)
            request.add_header("Authorization", "Bearer " + self.token)
            request.add_header("Content-Type", "application/json")
            try:
                with urllib.request.urlopen(request, timeout=timeout) as answer:
                    return answer.status, json.load(answer)
            except urllib.error.HTTPError as error:
                if error.code == 429:
                    time.sleep(float(error.headers.get("Retry-After", "1")))
                    continue
                text = error.read()
                return error.code, json.loads(text) if text else {}
            except (urllib.error.URLError, ConnectionError, TimeoutError) as error:
                print(f"connection lost ({error}); retrying", file=sys.stderr, flush=True)
                time.sleep(1)


def play_turn(api, game_id):
    """Plays a random legal move if the game waits for us; a stale ply
    means the game moved on (a takeback): look again."""
    for _ in range(5):
        status, game = api.call("GET", f"/games/{game_id}")
        if status != 200 or game["status"] != "active" or game["to_move"] != game["your_seat"]:
            return
        move = random.choice(game["legal"])
        status, answer = api.call("POST", f"/games/{game_id}/moves", {"move": move, "ply": game["ply"]})
        if status in (200, 201):
            print(f"game {game_id}: played {move}", flush=True)
            return


def handle(api, event):
    game_id = event["payload"].get("game")
    kind = event["kind"]
    if kind == "invited":
        api.call("POST", f"/games/{game_id}/join")
    elif kind in ("your_turn", "game_started", "reminder"):
        play_turn(api, game_id)
    elif kind == "draw_offered":
        api.call("POST", f"/games/{game_id}/draw/no")
    elif kind == "takeback_offered":
        api.call("POST", f"/games/{game_id}/takeback/no")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--url", required=True, help="the server, e.g. http://127.0.0.1:8080")
    parser.add_argument("--token", required=True, help="the bot account's bearer token")
    parser.add_argument("--after", type=int, default=0, help="the last event already handled")
    args = parser.parse_args()
    api = Api(args.url, args.token)
    # A turn may have come while the bot was away.
    for game in api.call("GET", "/games?turn=me")[1].get("games", []):
        play_turn(api, game["id"])
    after = args.after
    while True:
        status, answer = api.call("GET", f"/events?after={after}&wait=25")
        if status != 200:
            print(f"events: {status} {answer}", file=sys.stderr, flush=True)
            time.sleep(1)
            continue
        for event in answer["events"]:
            handle(api, event)
            after = event["seq"]
            print(f"after {after}", flush=True)


if __name__ == "__main__":
    try:
        main()
    except KeyboardInterrupt:
        pass
