-- cpu-time.sql: CPU time per process over a window [:t1, :t2] (ns), from
-- each CPU's current thread (idle, tid 0, left out), the busiest first.
-- A thread's process is its PID attribute, else itself; its name, the
-- process leader's last Exec_name.  Parameters :file, :t1, :t2.
WITH run AS MATERIALIZED (
  SELECT value AS tid, min("end", :t2) - max(start, :t1) + 1 AS ns
  FROM sht_intervals(:file)
  WHERE path GLOB 'CPUs/*/Current_thread' AND "end" >= :t1 AND start <= :t2
    AND value > 0),
pids AS MATERIALIZED (
  SELECT CAST(substr(path, 9, length(path) - 12) AS INTEGER) AS tid, value AS pid, max(start)
  FROM sht_intervals(:file)
  WHERE path GLOB 'Threads/*/PID' AND value IS NOT NULL
  GROUP BY path),
names AS MATERIALIZED (
  SELECT substr(path, 9, length(path) - 18) AS tid, value AS name, max(start)
  FROM sht_intervals(:file)
  WHERE path GLOB 'Threads/*/Exec_name' AND type = 'string'
  GROUP BY path),
per AS MATERIALIZED (
  SELECT coalesce(p.pid, r.tid) AS process, sum(ns) AS ns
  FROM run r LEFT JOIN pids p USING (tid)
  GROUP BY 1)
SELECT process, names.name, round(ns / 1e6, 3) AS cpu_ms,
       round(100.0 * ns / (:t2 - :t1 + 1), 1) AS pct_of_one_cpu
FROM per LEFT JOIN names ON names.tid = CAST(per.process AS TEXT)
ORDER BY ns DESC, process
LIMIT 10;
