import SQLiteKit

/// The run store's schema, as migrations for each database: the same tables, columns and meaning
/// (docs/engine.md "Checkpoint layout"), in each one's types. Migration `i` of one list is migration `i`
/// of the other, so a version names the same schema in both.
enum RunStoreSchema {
    static let sqlite: [SQLiteDatabase.Migration] = [
        .init(
            "checkpoints",
            sql: """
                CREATE TABLE runs(
                  id INTEGER PRIMARY KEY,
                  playbook_name TEXT NOT NULL,
                  playbook_hash TEXT NOT NULL,
                  input_fingerprints TEXT NOT NULL,
                  vars TEXT NOT NULL,
                  status TEXT NOT NULL,
                  started_at REAL NOT NULL,
                  ended_at REAL,
                  pending INTEGER NOT NULL DEFAULT 0,
                  started INTEGER NOT NULL DEFAULT 0,
                  succeeded INTEGER NOT NULL DEFAULT 0,
                  failed INTEGER NOT NULL DEFAULT 0,
                  rejected INTEGER NOT NULL DEFAULT 0,
                  skipped INTEGER NOT NULL DEFAULT 0,
                  lock_pid INTEGER,
                  lock_host TEXT,
                  lock_heartbeat REAL,
                  message TEXT);
                CREATE INDEX runs_by_playbook ON runs(playbook_name, id);
                CREATE TABLE steps(
                  run_id INTEGER NOT NULL REFERENCES runs(id),
                  step TEXT NOT NULL,
                  status TEXT NOT NULL,
                  message TEXT,
                  PRIMARY KEY(run_id, step)) WITHOUT ROWID;
                CREATE TABLE items(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  item_key TEXT NOT NULL,
                  state TEXT NOT NULL,
                  attempts INTEGER NOT NULL DEFAULT 0,
                  error_class TEXT,
                  message TEXT,
                  result TEXT,
                  idempotency_key TEXT,
                  updated_at REAL NOT NULL,
                  PRIMARY KEY(run_id, step, item_key)) WITHOUT ROWID;
                CREATE TABLE events(
                  id INTEGER PRIMARY KEY,
                  run_id INTEGER NOT NULL,
                  at REAL NOT NULL,
                  kind TEXT NOT NULL,
                  step TEXT,
                  message TEXT);
                CREATE INDEX events_by_run ON events(run_id, id);
                """),
        // Front-end facts about a run (the playbook path, the command that resumes it, step totals) and
        // the last time `walletops due` checked each playbook's schedule.
        .init(
            "run-attributes-and-schedule-checks",
            sql: """
                CREATE TABLE run_attributes(
                  run_id INTEGER NOT NULL,
                  name TEXT NOT NULL,
                  value TEXT NOT NULL,
                  PRIMARY KEY(run_id, name)) WITHOUT ROWID;
                CREATE TABLE schedule_checks(
                  playbook TEXT PRIMARY KEY,
                  checked_at REAL NOT NULL) WITHOUT ROWID;
                """),
        // Watermark checkpoints (docs/engine.md "Checkpoint layout"): per step, the count of leading items
        // (in input order) that are all finished, so items that succeed in order need no row. Rows remain
        // for the exceptions and carry the item's position. Rows of older versions have no position: such
        // runs are refused on resume (`RunStoreError.Code.olderCheckpointFormat`), their counts still show.
        .init(
            "step-watermarks",
            sql: """
                ALTER TABLE items ADD COLUMN item_index INTEGER;
                CREATE INDEX items_by_index ON items(run_id, step, item_index);
                CREATE INDEX items_unpositioned ON items(run_id) WHERE item_index IS NULL;
                CREATE TABLE step_marks(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  watermark INTEGER NOT NULL,
                  keys_hash INTEGER NOT NULL,
                  PRIMARY KEY(run_id, step)) WITHOUT ROWID;
                """),
        // In-item progress of round 1 (an item's own progress within it). Chunk steps made every row an
        // item, so nothing writes these columns any more; the migration stays for older run stores.
        .init(
            "step-item-progress",
            sql: """
                ALTER TABLE steps ADD COLUMN progress_done INTEGER;
                ALTER TABLE steps ADD COLUMN progress_total INTEGER;
                ALTER TABLE steps ADD COLUMN progress_unit TEXT;
                ALTER TABLE steps ADD COLUMN progress_items INTEGER;
                ALTER TABLE steps ADD COLUMN progress_rate REAL;
                ALTER TABLE steps ADD COLUMN progress_at REAL;
                """),
        // Output sinks of chunk steps (docs/engine.md "Output sinks"): per step and sink, the position its
        // rows reach (the step's watermark when committed) and the file's byte offset there.
        .init(
            "step-sinks",
            sql: """
                CREATE TABLE step_sinks(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  sink INTEGER NOT NULL,
                  position INTEGER NOT NULL,
                  byte_offset INTEGER NOT NULL,
                  PRIMARY KEY(run_id, step, sink)) WITHOUT ROWID;
                """),
        // Chunk leases (docs/engine.md "Chunk leases"): a step's items in chunks of a fixed size that
        // workers claim, each claim raising the chunk's epoch (its fencing token), in database time.
        .init(
            "chunk-leases",
            sql: """
                CREATE TABLE step_chunking(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  chunk_size INTEGER NOT NULL,
                  total INTEGER,
                  next_chunk INTEGER NOT NULL DEFAULT 0,
                  PRIMARY KEY(run_id, step)) WITHOUT ROWID;
                CREATE TABLE chunk_leases(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  chunk INTEGER NOT NULL,
                  state TEXT NOT NULL,
                  epoch INTEGER NOT NULL,
                  owner TEXT NOT NULL,
                  lease_until REAL NOT NULL,
                  PRIMARY KEY(run_id, step, chunk)) WITHOUT ROWID;
                """),
        // Runs found by what they do (docs/engine.md "Runs, identity, locks"): the key of the playbook,
        // its inputs and the vars that change the work. Runs of older versions have none: they are
        // resumed only by id (`--resume N`) or with `--accept-changes`.
        .init(
            "run-identity-keys",
            sql: """
                ALTER TABLE runs ADD COLUMN identity_key TEXT;
                CREATE INDEX runs_by_identity ON runs(playbook_name, identity_key, id);
                """),
        // A leased chunk's output rows (docs/engine.md "Running on several machines"), written with its
        // completion: the step's output files are assembled from them in chunk order at the step's end.
        .init(
            "chunk-outputs",
            sql: """
                CREATE TABLE chunk_outputs(
                  run_id INTEGER NOT NULL,
                  step TEXT NOT NULL,
                  chunk INTEGER NOT NULL,
                  sink INTEGER NOT NULL,
                  rows TEXT NOT NULL,
                  PRIMARY KEY(run_id, step, chunk, sink)) WITHOUT ROWID;
                """),
        // The rows that did not succeed, by position: a resume counts those below its watermark a window at a
        // time (``RunHandle/unsucceeded(step:positions:)``) without a seek into `items` for each of the
        // out-of-order successes left there. Not in PostgreSQL's schema: there a leased chunk writes each
        // item's intent (`started`) and then its outcome, and the index would be written twice per item.
        .init(
            "unsucceeded-items",
            sql: """
                CREATE INDEX items_unsucceeded ON items(run_id, step, item_index) WHERE state <> 'succeeded';
                """),
    ]

    /// PostgreSQL's: in the schema `walletops`, times as `double precision` Unix seconds like SQLite's
    /// `REAL`, keys in the "C" collation so that they sort by bytes as in SQLite (the `items` pages of
    /// `failures` use `item_key > ?`).
    static let postgres: [(name: String, sql: String)] = [
        (
            "checkpoints",
            """
            CREATE TABLE runs(
              id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
              playbook_name TEXT COLLATE "C" NOT NULL,
              playbook_hash TEXT NOT NULL,
              input_fingerprints TEXT NOT NULL,
              vars TEXT NOT NULL,
              status TEXT NOT NULL,
              started_at DOUBLE PRECISION NOT NULL,
              ended_at DOUBLE PRECISION,
              pending BIGINT NOT NULL DEFAULT 0,
              started BIGINT NOT NULL DEFAULT 0,
              succeeded BIGINT NOT NULL DEFAULT 0,
              failed BIGINT NOT NULL DEFAULT 0,
              rejected BIGINT NOT NULL DEFAULT 0,
              skipped BIGINT NOT NULL DEFAULT 0,
              lock_pid BIGINT,
              lock_host TEXT,
              lock_heartbeat DOUBLE PRECISION,
              message TEXT);
            CREATE INDEX runs_by_playbook ON runs(playbook_name, id);
            CREATE TABLE steps(
              run_id BIGINT NOT NULL REFERENCES runs(id),
              step TEXT COLLATE "C" NOT NULL,
              status TEXT NOT NULL,
              message TEXT,
              PRIMARY KEY(run_id, step));
            CREATE TABLE items(
              run_id BIGINT NOT NULL,
              step TEXT COLLATE "C" NOT NULL,
              item_key TEXT COLLATE "C" NOT NULL,
              state TEXT NOT NULL,
              attempts BIGINT NOT NULL DEFAULT 0,
              error_class TEXT,
              message TEXT,
              result TEXT,
              idempotency_key TEXT,
              updated_at DOUBLE PRECISION NOT NULL,
              PRIMARY KEY(run_id, step, item_key));
            CREATE TABLE events(
              id BIGINT GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
              run_id BIGINT NOT NULL,
              at DOUBLE PRECISION NOT NULL,
              kind TEXT NOT NULL,
              step TEXT,
              message TEXT);
            CREATE INDEX events_by_run ON events(run_id, id);
            """
        ),
        (
            "run-attributes-and-schedule-checks",
            """
            CREATE TABLE run_attributes(
              run_id BIGINT NOT NULL,
              name TEXT COLLATE "C" NOT NULL,
              value TEXT NOT NULL,
              PRIMARY KEY(run_id, name));
            CREATE TABLE schedule_checks(
              playbook TEXT COLLATE "C" PRIMARY KEY,
              checked_at DOUBLE PRECISION NOT NULL);
            """
        ),
        (
            "step-watermarks",
            """
            ALTER TABLE items ADD COLUMN item_index BIGINT;
            CREATE INDEX items_by_index ON items(run_id, step, item_index);
            CREATE INDEX items_unpositioned ON items(run_id) WHERE item_index IS NULL;
            CREATE TABLE step_marks(
              run_id BIGINT NOT NULL,
              step TEXT COLLATE "C" NOT NULL,
              watermark BIGINT NOT NULL,
              keys_hash BIGINT NOT NULL,
              PRIMARY KEY(run_id, step));
            """
        ),
        (
            "step-item-progress",
            """
            ALTER TABLE steps ADD COLUMN progress_done BIGINT;
            ALTER TABLE steps ADD COLUMN progress_total BIGINT;
            ALTER TABLE steps ADD COLUMN progress_unit TEXT;
            ALTER TABLE steps ADD COLUMN progress_items BIGINT;
            ALTER TABLE steps ADD COLUMN progress_rate DOUBLE PRECISION;
            ALTER TABLE steps ADD COLUMN progress_at DOUBLE PRECISION;
            """
        ),
        (
            "step-sinks",
            """
            CREATE TABLE step_sinks(
              run_id BIGINT NOT NULL,
              step TEXT COLLATE "C" NOT NULL,
              sink BIGINT NOT NULL,
              position BIGINT NOT NULL,
              byte_offset BIGINT NOT NULL,
              PRIMARY KEY(run_id, step, sink));
            """
        ),
        (
            "chunk-leases",
            """
            CREATE TABLE step_chunking(
              run_id BIGINT NOT NULL,
              step TEXT COLLATE "C" NOT NULL,
              chunk_size BIGINT NOT NULL,
              total BIGINT,
              next_chunk BIGINT NOT NULL DEFAULT 0,
              PRIMARY KEY(run_id, step));
            CREATE TABLE chunk_leases(
              run_id BIGINT NOT NULL,
              step TEXT COLLATE "C" NOT NULL,
              chunk BIGINT NOT NULL,
              state TEXT NOT NULL,
              epoch BIGINT NOT NULL,
              owner TEXT NOT NULL,
              lease_until DOUBLE PRECISION NOT NULL,
              PRIMARY KEY(run_id, step, chunk));
            """
        ),
        (
            "run-identity-keys",
            """
            ALTER TABLE runs ADD COLUMN identity_key TEXT;
            CREATE INDEX runs_by_identity ON runs(playbook_name, identity_key, id);
            """
        ),
        (
            "chunk-outputs",
            """
            CREATE TABLE chunk_outputs(
              run_id BIGINT NOT NULL,
              step TEXT COLLATE "C" NOT NULL,
              chunk BIGINT NOT NULL,
              sink BIGINT NOT NULL,
              rows TEXT NOT NULL,
              PRIMARY KEY(run_id, step, chunk, sink));
            """
        ),
    ]
}
