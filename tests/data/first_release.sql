-- The SQLite schema of the first release (schema version 1), as it created it.
CREATE TABLE players (
    user_id INTEGER PRIMARY KEY,
    name TEXT NOT NULL DEFAULT '',
    language TEXT,
    view TEXT NOT NULL DEFAULT 'emoji'
);
CREATE TABLE games (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    chat_id INTEGER NOT NULL,
    owner_id INTEGER NOT NULL,
    size INTEGER NOT NULL,
    state TEXT NOT NULL,
    active INTEGER NOT NULL DEFAULT 1,
    message_id INTEGER,
    played_counted INTEGER NOT NULL DEFAULT 0,
    created_at REAL NOT NULL,
    updated_at REAL NOT NULL
);
CREATE UNIQUE INDEX games_one_active
    ON games (chat_id, owner_id) WHERE active = 1;
CREATE TABLE records (
    user_id INTEGER NOT NULL,
    size INTEGER NOT NULL,
    best_score INTEGER NOT NULL DEFAULT 0,
    games_played INTEGER NOT NULL DEFAULT 0,
    games_won INTEGER NOT NULL DEFAULT 0,
    highest_tile INTEGER NOT NULL DEFAULT 0,
    fewest_moves_to_win INTEGER,
    fastest_win_seconds REAL,
    PRIMARY KEY (user_id, size)
);
