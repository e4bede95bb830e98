-- syscall-latency.sql: system call latency percentiles per process (50th,
-- 99th, max; nearest rank), for processes with at least 100 finished
-- calls, the slowest 99th percentiles first.  A call is a non-null
-- interval of Threads/<tid>/System_call; a thread's process is its PID
-- attribute (present when tid != pid), else itself; its name is the
-- process leader's last Exec_name.  Parameter :file.
WITH calls AS MATERIALIZED (
  SELECT substr(path, 9, length(path) - 20) AS tid, "end" - start + 1 AS ns
  FROM sht_intervals(:file)
  WHERE path GLOB 'Threads/*/System_call' AND type = 'string'
    AND "end" < sht_end(:file)),
pids AS MATERIALIZED (
  SELECT substr(path, 9, length(path) - 12) AS tid, CAST(value AS TEXT) AS pid, max(start)
  FROM sht_intervals(:file)
  WHERE path GLOB 'Threads/*/PID' AND value IS NOT NULL
  GROUP BY path),
names AS MATERIALIZED (
  SELECT substr(path, 9, length(path) - 18) AS tid, value AS name, max(start)
  FROM sht_intervals(:file)
  WHERE path GLOB 'Threads/*/Exec_name' AND type = 'string'
  GROUP BY path),
ranked AS MATERIALIZED (
  SELECT coalesce(p.pid, c.tid) AS process, ns,
         row_number() OVER w AS k, count(*) OVER (PARTITION BY coalesce(p.pid, c.tid)) AS n
  FROM calls c LEFT JOIN pids p USING (tid)
  WINDOW w AS (PARTITION BY coalesce(p.pid, c.tid) ORDER BY ns))
SELECT CAST(process AS INTEGER) AS process, names.name, n AS calls,
       round(max(CASE WHEN k = (n + 1) / 2 THEN ns END) / 1e3, 1) AS p50_us,
       round(max(CASE WHEN k = (99 * n + 99) / 100 THEN ns END) / 1e3, 1) AS p99_us,
       round(max(ns) / 1e3, 1) AS max_us
FROM ranked LEFT JOIN names ON names.tid = ranked.process
WHERE n >= 100
GROUP BY process
ORDER BY p99_us DESC, CAST(process AS INTEGER)
LIMIT 10;
