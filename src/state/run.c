/*
 * run.c: running a provider over a source (the loop every analysis runs),
 * and the event boundaries partial histories place checkpoints at.
 */
#include "state/state-int.h"

_Thread_local sht_state *sht__held;

sht_err sht_state_event(sht_state *ss, const sht_event *ev)
{
	sht_err err = SHT_OK;

	sht__lock(ss);
	if (ss->readonly || ss->finished || ss->failed)
		err = sht__error(SHT_ERR_STATE, "Cannot run an event: the history is not being built");
	else if (ev->ts < ss->now)
		err = sht__error(SHT_ERR_ORDER, "Cannot run event: t=%lld before the previous change at %lld",
				 (long long)ev->ts, (long long)ss->now);
	else if (ss->ops == &sht__backend_partial)
		err = sht__partial_event(ss->be, ev);
	/* The history reaches every event, handled or not (docs/STATE.md
	 * §2.4: it ends at the last event of the trace). */
	if (err == SHT_OK)
		ss->now = ev->ts;
	sht__unlock(ss);
	return err;
}

/* Errors a handler may meet on a sound trace: they skip the event only. */
static int skippable(sht_err err)
{
	return err == SHT_ERR_TYPE || err == SHT_ERR_RANGE || err == SHT_ERR_NOATTR ||
	       err == SHT_NOT_FOUND;
}

sht_err sht_state_run(sht_state *ss, const sht_source *src, const sht_provider *p,
		      uint64_t *events, uint64_t *skipped)
{
	return sht_state_run_hook(ss, src, p, NULL, NULL, events, skipped);
}

sht_err sht_state_run_hook(sht_state *ss, const sht_source *src,
			   const sht_provider *p, sht_run_hook hook, void *ctx,
			   uint64_t *events, uint64_t *skipped)
{
	uint64_t n = 0, skip = 0;
	sht_state *held = sht__held;
	sht_time last = 0;
	int stopped = 0;
	sht_event ev;
	sht_err err;

	sht__lock(ss);
	err = sht__about_adopt(ss, p->model);
	sht__unlock(ss);
	if (err != SHT_OK)
		return err;
	while ((err = src->ops->next(src->src, &ev)) == SHT_OK) {
		/* A new time: no event of the last one is left. */
		if (hook && (n == 0 || ev.ts > last) &&
		    (err = hook(ctx, &ev, n, skip)) != SHT_OK) {
			stopped = 1;
			break;
		}
		last = ev.ts;
		/* One lock per event: the handler's calls on ss skip it. */
		sht__lock(ss);
		sht__held = ss;
		err = sht_state_event(ss, &ev);
		if (err == SHT_OK)
			err = p->handle(p->ctx, ss, &ev);
		sht__held = held;
		sht__unlock(ss);
		n++;
		if (err != SHT_OK && !skippable(err))
			break;
		skip += err != SHT_OK;
		err = SHT_OK;
	}
	if (events)
		*events = n;
	if (skipped)
		*skipped = skip;
	if (stopped)
		return err;              /* the hook's: SHT_END, or an error */
	return err == SHT_END ? SHT_OK : err;
}
