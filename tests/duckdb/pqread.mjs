// Reads Parquet files with DuckDB and prints what tests/golden/test_parquet.py
// compares, as one JSON object on stdout:
//   node pqread.mjs DATASET_DIR FILE...
//   {"files": {FILE: {"columns": [[name, type]...], "rows": [{...}...],
//                     "row_groups": [{"column": path, "min": .., "max": ..,
//                                     "encodings": ..}...]}},
//    "counts": {event: rows}}      (the whole dataset, Hive partitioning)
//   node pqread.mjs --partitions DATASET_DIR    (a dataset made with --partition host,trace)
//   {"partitions": [{"event", "host", "trace", "n"}...], "file_columns": [names],
//    "fleet": the same counts from DATASET/**/*.parquet read as one table (no Hive keys),
//    "fleet_types": [{column_name, column_type}] of the fixed columns in that table,
//    "file_types": [{name, types, files}]: each fixed column's Parquet types over the event files,
//    "event_files": their number, "traces": _traces.parquet's name, host and clocks}
// Values are made exact for JSON: TIMESTAMP_NS as epoch nanoseconds, BLOBs
// as lowercase hex; 64-bit integers come as strings.
import { DuckDBInstance } from '@duckdb/node-api';

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const quote = (s) => "'" + s.replaceAll("'", "''") + "'";
const ident = (s) => '"' + s.replaceAll('"', '""') + '"';

async function rows(sql) {
  return (await con.runAndReadAll(sql)).getRowObjectsJson();
}

if (process.argv[2] === '--partitions') {
  const dir = process.argv[3];
  const parts = `${dir}/event=*/host=*/trace=*/*.parquet`;
  const src = `read_parquet(${quote(parts)}, hive_partitioning = true, union_by_name = true)`;
  // The whole dataset as one table, meta tables included (their rows come
  // from files outside event=...), as the README shows it.
  const all = `read_parquet(${quote(dir + '/**/*.parquet')}, union_by_name = true, filename = 'parquet_file')`;
  const cols = await rows(`DESCRIBE SELECT * FROM read_parquet(${quote(parts)},
      hive_partitioning = false, union_by_name = true)`);
  const fixed = ['ts', 'cycles', 'event', 'host', 'trace', 'stream_id', 'stream_class_id', 'cpu'];
  process.stdout.write(JSON.stringify({
    partitions: await rows(`SELECT event, host, trace, count(*) AS n FROM ${src} GROUP BY ALL`),
    file_columns: cols.map((c) => c.column_name),
    fleet: await rows(`SELECT event, host, trace, count(*) AS n FROM ${all}
      WHERE contains(parquet_file, '/event=') GROUP BY ALL`),
    fleet_types: await rows(`SELECT column_name, column_type FROM (DESCRIBE SELECT * FROM ${all})
      WHERE column_name IN (${fixed.map(quote).join(', ')})`),
    // Each fixed column's Parquet types over every event file: one per column.
    file_types: await rows(`SELECT name, list(DISTINCT concat_ws(' ', type, converted_type,
        logical_type, repetition_type)) AS types, count(DISTINCT file_name) AS files
      FROM parquet_schema(${quote(parts)}) WHERE name IN (${fixed.map(quote).join(', ')})
      GROUP BY name`),
    event_files: Number((await rows(`SELECT count(*) AS n FROM glob(${quote(parts)})`))[0].n),
    traces: await rows(`SELECT name, host, clocks FROM read_parquet(${quote(dir + '/_traces.parquet')})`),
  }));
  process.exit(0);
}

const [dir, ...files] = process.argv.slice(2);
const out = { files: {}, counts: {} };
for (const f of files) {
  const src = `read_parquet(${quote(f)}, hive_partitioning = false)`;
  const cols = await rows(`DESCRIBE SELECT * FROM ${src}`);
  const sel = cols.map(({ column_name: n, column_type: t }) =>
    t === 'TIMESTAMP_NS' ? `epoch_ns(${ident(n)}) AS ${ident(n)}`
      : t === 'BLOB' ? `lower(hex(${ident(n)})) AS ${ident(n)}` : ident(n));
  out.files[f] = {
    columns: cols.map((c) => [c.column_name, c.column_type]),
    rows: cols.length ? await rows(`SELECT ${sel.join(', ')} FROM ${src}`) : [],
    row_groups: await rows(`SELECT row_group_id, path_in_schema AS column, stats_min_value AS min,
      stats_max_value AS max, encodings, row_group_num_rows AS num_rows
      FROM parquet_metadata(${quote(f)}) ORDER BY row_group_id, column_id`),
  };
}
const events = `${dir}/event=*/*.parquet`;
const any = await rows(`SELECT count(*) AS n FROM glob(${quote(events)})`);
if (Number(any[0].n) > 0) {
  for (const r of await rows(`SELECT event, count(*) AS n FROM read_parquet(${quote(events)},
      hive_partitioning = true, union_by_name = true) GROUP BY event`))
    out.counts[r.event] = Number(r.n);
}
process.stdout.write(JSON.stringify(out));
