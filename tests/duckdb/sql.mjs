// Runs one SQL statement with DuckDB and prints its rows as a JSON array
// (64-bit integers as strings):   node sql.mjs 'SELECT ...'
// The working directory is where relative paths in the SQL are read from.
import { DuckDBInstance } from '@duckdb/node-api';

const db = await DuckDBInstance.create(':memory:');
const con = await db.connect();
const result = await con.runAndReadAll(process.argv[2]);
process.stdout.write(JSON.stringify(result.getRowObjectsJson()));
