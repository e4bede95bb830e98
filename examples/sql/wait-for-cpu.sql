-- wait-for-cpu.sql: the threads of a kernel history that waited longest
-- for a CPU (status 5: runnable, not running), with their last name;
-- the idle threads (Threads/0_<cpu>) left out.
-- Parameter :file, the history (sht build TRACE -o FILE).
--   sqlite3 -cmd '.load /usr/local/lib/sht/sht_sqlite' \
--           -cmd ".parameter set :file 'mt.sht'" < wait-for-cpu.sql
WITH waits AS MATERIALIZED (
  SELECT substr(path, 9) AS tid, sum("end" - start + 1) AS ns
  FROM sht_intervals(:file)
  WHERE path GLOB 'Threads/*' AND path NOT GLOB 'Threads/*/*'
    AND path NOT GLOB 'Threads/0_*' AND value = 5
  GROUP BY path),
names AS MATERIALIZED (
  SELECT substr(path, 9, length(path) - 18) AS tid, value AS name, max(start)
  FROM sht_intervals(:file)
  WHERE path GLOB 'Threads/*/Exec_name' AND type = 'string'
  GROUP BY path)
SELECT tid, name, round(ns / 1e6, 3) AS wait_ms
FROM waits LEFT JOIN names USING (tid)
ORDER BY ns DESC, tid
LIMIT 10;
