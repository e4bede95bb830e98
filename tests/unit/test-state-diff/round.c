/*
 * round.c: test-state-diff, one round: its systems, its script, its checks.
 */
#include "state-diff.h"

/* ---- one round ------------------------------------------------------------------ */

static void add_sut(run *R, sht_backend b, sht_variant v, uint32_t bs)
{
	sut *s = &R->s[R->ns++];
	sht_state_opts opts;
	sht_err rc;

	memset(s, 0, sizeof *s);
	s->backend = b;
	s->variant = v;
	s->block_size = bs;
	if (b == SHT_BACKEND_TREE)
		snprintf(s->label, sizeof s->label, "tree/%s/%u",
			 v == SHT_VARIANT_SHT ? "SHT" : "eSHT", bs);
	else
		snprintf(s->label, sizeof s->label, "%s",
			 b == SHT_BACKEND_MEMORY ? "memory" : "null");
	sht_state_opts_init(&opts);
	opts.backend = b;
	opts.tree.variant = v;
	opts.tree.block_size = bs;
	opts.tree.no_sync = true;
	opts.provider = "diff.test";
	opts.provider_version = (uint32_t)R->round;
	if (b == SHT_BACKEND_TREE)
		scratch_path(s->path, sizeof s->path, "diff");
	rc = sht_state_create(b == SHT_BACKEND_TREE ? s->path : NULL,
			      R->m.start, &opts, &s->ss);
	if (rc != SHT_OK)
		bail_out("Cannot create %s: %s (%s)", s->label,
			 sht_err_name(rc), sht_errmsg());
}

/* A modify at the script clock that surely changes a value. */
static void force_change(run *R)
{
	int tries, j;

	for (tries = 0; tries < 1000; tries++) {
		sht_quark q = pick_plain(R);
		sht_type ty;
		sht_value v;
		sht_err em;

		if (q == SHT_QUARK_NONE)
			continue;
		ty = R->m.a[q].locked != SHT_TYPE_NULL
		     ? R->m.a[q].locked : (sht_type)R->pref[q];
		v = rand_of_type(R, ty);
		if (sm_value_eq(&v, &R->m.a[q].cur))
			continue;
		R->opt = R->t;
		em = sm_modify(&R->m, R->t, q, &v);
		logop(R, "modify q%" PRIu32 " (%s) = %s (last change) -> %s",
		      q, qpath(&R->m, q), vstr(&v), sht_err_name(em));
		for (j = 0; j < R->ns; j++)
			if (alive(&R->s[j]))
				cmp_rc(R, &R->s[j], em,
				       sht_state_modify(R->s[j].ss, R->t, q,
							&v), "modify");
		return;
	}
}

static void live_checks(run *R)
{
	int j;

	for (j = 0; j < R->ns; j++)
		check_queries(R, &R->s[j], "live", 0);
}

void do_round(run *R, const round_cfg *c, uint64_t seed)
{
	static const uint32_t sizes[] = { 1024, 4096, 65536 };
	double t0 = now_s();
	size_t i;
	sht_time end;
	int j, v, b;

	rng_seed(&R->rng, seed);
	sm_init(&R->m, c->start);
	R->m.latest_on_call = c->latest_on_call;
	R->m.lock_on_change = R->lock_on_change;
	R->t = c->start;
	R->ns = 0;
	R->op = 0;
	R->nstacks = 0;
	memset(R->hist, 0, sizeof R->hist);
	memset(R->logn, 0xff, sizeof R->logn);
	R->target_attrs = c->target_attrs;
	for (v = 0; v < 2; v++)
		for (b = 0; b < 3; b++)
			add_sut(R, SHT_BACKEND_TREE,
				v ? SHT_VARIANT_ESHT : SHT_VARIANT_SHT,
				sizes[b]);
	add_sut(R, SHT_BACKEND_MEMORY, SHT_VARIANT_ESHT, 0);
	add_sut(R, SHT_BACKEND_NULL, SHT_VARIANT_ESHT, 0);

	/* A first few attributes, then the script. */
	for (i = 0; i < 8; i++, R->op++)
		op_lookup(R, 1);
	for (i = 0; i < c->ops; i++, R->op++) {
		unsigned u = (unsigned)rng_below(&R->rng, 1000);
		int want_create = R->m.n < R->target_attrs;

		if (u < (want_create ? 90u : 8u))
			op_lookup(R, 1);
		else if (u < 110)
			op_lookup(R, 0);
		else if (u < 460)
			op_modify(R);
		else if (u < 480)
			op_modify_stack(R);
		else if (u < 520)
			op_clear(R);
		else if (u < 640)
			op_push(R);
		else if (u < 740)
			op_pop(R);
		else if (u < 850)
			op_increment(R);
		else if (u < 880)
			op_update(R);
		else
			op_ongoing(R);
		if (i % 700 == 699)
			live_checks(R);
	}
	live_checks(R);

	/* Finish: once too early (when possible), then for real. */
	R->op++;
	R->opt = R->t;
	if (R->m.latest > R->m.start) {
		logop(R, "finish at %" PRId64 " (too early)",
		      R->m.latest - 1);
		for (j = 0; j < R->ns; j++)
			if (alive(&R->s[j]))
				cmp_rc(R, &R->s[j], SHT_ERR_ORDER,
				       sht_state_finish(R->s[j].ss,
							R->m.latest - 1),
				       "early finish");
	}
	/* A change at the last time, then finish there (even rounds) or
	 * later (odd rounds). */
	R->op++;
	force_change(R);
	R->op++;
	end = R->m.latest + (R->round % 2 == 0 ? 0
			     : rng_range(&R->rng, 1, 5000));
	R->t = R->opt = end;
	{
		sht_err em = sm_finish(&R->m, end);

		logop(R, "finish at %" PRId64 " -> %s", end, sht_err_name(em));
		for (j = 0; j < R->ns; j++)
			if (alive(&R->s[j]))
				cmp_rc(R, &R->s[j], em,
				       sht_state_finish(R->s[j].ss, end),
				       "finish");
	}
	{
		size_t niv = 0;

		for (i = 0; i < R->m.n; i++)
			niv += R->m.a[i].niv;
		printf("# round %d: %zu ops, %zu attributes, %zu stacks, "
		       "%zu intervals, [%" PRId64 ", %" PRId64 "]\n",
		       R->round, c->ops, R->m.n, R->nstacks, niv, R->m.start,
		       end);
		printf("# round %d statuses: ok %ld, not-found (empty pop) "
		       "%ld, type %ld, order %ld, range %ld\n", R->round,
		       R->hist[12 + SHT_OK], R->hist[12 + SHT_NOT_FOUND],
		       R->hist[12 + SHT_ERR_TYPE], R->hist[12 + SHT_ERR_ORDER],
		       R->hist[12 + SHT_ERR_RANGE]);
	}
	for (j = 0; j < R->ns; j++)
		check_queries(R, &R->s[j], "finished", 1);
	/* Null backend: queries fail. */
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];

		if (s->backend == SHT_BACKEND_NULL && alive(s) && R->m.n &&
		    sht_state_query_full(s->ss, R->m.start, R->res) >= 0)
			diverge(R, s, "null backend: a full query succeeded");
	}
	/* Reopen the files. */
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];
		const char *id = NULL;
		uint32_t ver = 0;
		sht_err rc;

		if (s->backend != SHT_BACKEND_TREE || s->dead)
			continue;
		sht_state_close(s->ss);
		s->ss = NULL;
		rc = sht_state_open(s->path, NULL, &s->ss);
		if (rc != SHT_OK) {
			diverge(R, s, "reopen: %s (%s)", sht_err_name(rc),
				sht_errmsg());
			continue;
		}
		if (sht_state_provider(s->ss, &id, &ver) != SHT_OK ||
		    strcmp(id, "diff.test") != 0 || ver != (uint32_t)R->round)
			diverge(R, s, "reopened: provider %s %u", id ? id : "?",
				(unsigned)ver);
		check_queries(R, s, "reopened", 1);
	}
	for (j = 0; j < R->ns; j++) {
		sut *s = &R->s[j];

		if (!s->dead)
			ok(1, "round %d %s: agrees with the model (%ld "
			   "comparisons)", R->round, s->label, s->checks);
		sht_state_close(s->ss);
		if (s->backend == SHT_BACKEND_TREE)
			unlink(s->path);
	}
	sm_free(&R->m);
	printf("# round %d: %.1f s\n", R->round, now_s() - t0);
}
