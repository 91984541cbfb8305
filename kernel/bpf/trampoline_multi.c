// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry.multi, fexit.multi, fmod_ret.multi and fsession.multi: one program
 * attached to many kernel functions by one link, through trampolines shared
 * per arity class. This file routes a link's functions to trampoline
 * images and keeps them routed while links and ordinary programs come and
 * go; the link itself (its UAPI, resolving its ids, what its programs
 * read) is in tracing_multi_link.c.
 *
 * Objects:
 * - struct bpf_tracing_multi_link (trampoline.h): the link; funcs[] holds
 *   its functions sorted by address, each with its struct bpf_trampoline
 *   (the per-function object ordinary fentry/fexit use too).
 * - struct bpf_tramp_shared: one trampoline image serving every function
 *   of the same arity class (tramp_shared_model()), with the same
 *   patched-call offset and the same set of multi links, and no ordinary
 *   program. Its ftrace_ops holds exactly those functions; when the set
 *   changes, the ops changes in place (ftrace_direct_replace()): no
 *   function misses a call, and only the call sites of functions that
 *   come or go are rewritten.
 *
 * Every link operation (attach or detach) recomputes where each of the
 * link's functions goes, creates the images that do not exist yet, and
 * switches all functions in one ftrace_direct_replace() call (but a
 * function that keeps its own image beside an IPMODIFY user, changed in
 * place by modify_ftrace_direct()). Either all of it happens or, on error,
 * none. An update waits for no grace period under tramp_multi_mutex: the
 * images and ops it empties are freed after one by work items
 * (multi_put_workfn(), ftrace_direct_change.release); only an ftrace update
 * that fails once ops are registered waits inside ftrace (a rude and an
 * RCU-tasks grace period), and one that waits for direct_mutex or a
 * tr->mutex waits for what their holder waits for. A detach, which lets
 * a program go, is followed by that wait (as ftrace_shutdown() would have
 * waited), which frees what its reroutes emptied: bpf_tramp_multi_wait(),
 * once the mutexes are released: an ordinary program's detach waits itself
 * (bpf_trampoline_unlink_prog()), a multi link's release leaves the wait
 * to a work item and keeps its program until then (tracing_multi_link.c).
 *
 * Live patches and other IPMODIFY ftrace users: ftrace lets a direct
 * trampoline share a function with one only if the trampoline calls the
 * function through the return address it was called with, which the
 * IPMODIFY user may have changed (BPF_TRAMP_F_ORIG_STACK), and only one
 * direct ops at a time. So a function with an IPMODIFY user
 * (BPF_TRAMP_F_SHARE_IPMODIFY in tr->flags) never goes to a shared image,
 * whose IP would be the patched function's: it gets its own image with
 * ORIG_STACK, changed in place by modify_ftrace_direct() while it keeps
 * one. The flag comes from ftrace: asked at planning for a function not
 * routed yet, told by the ops_func callbacks when an IPMODIFY user comes
 * (PEER, SELF) or goes. One that comes without a callback (a registered
 * IPMODIFY ops grows its filter) is found by the function's next move:
 * ftrace asks the ops that takes it (SELF).
 *
 * Detach never fails. When a reroute cannot get memory (or JIT space), the
 * link's programs are jumped over in the images that run them: the JIT
 * starts each program's code in a multi image with a place to patch for
 * that (bpf_arch_tramp_skip()), so it needs nothing new. Those images
 * stay where they are and run the other links; planning no longer picks
 * them. A shared image that jumps over a link is dead
 * (bpf_tramp_shared.dead). Each function left on an image that jumps over
 * a program, shared or its own (also after an ordinary program's detach
 * without memory, bpf_tramp_multi_unlink()), is stale (on
 * tramp_stale_list) until multi_tidy() moves it, as soon as it can,
 * keeping its trampoline until then.
 *
 * Locking. tramp_multi_mutex serializes link operations (attach, detach,
 * multi_tidy()) and guards every bpf_tramp_shared, the registries below,
 * each function's struct bpf_tramp_multi and the multi fields of its
 * struct bpf_trampoline, and all of that struct while the function is
 * multi-managed. A link operation takes it for every function it touches.
 *
 * tr->mutex guards a function's trampoline as it does without multi links
 * while the function is not multi-managed, and, with tramp_multi_mutex,
 * the multi fields that trampoline.h and include/linux/bpf.h say it does.
 *
 * A function is multi-managed (bpf_tramp_multi_managed(), trampoline.h
 * defines it) while multi links or a detaching one count in it, it is on
 * a shared image, or it is stale: only then does code here read or change
 * its trampoline, and only then does the ordinary path take
 * tramp_multi_mutex, before tr->mutex: an ordinary program's attach or
 * detach (bpf_trampoline_lock()) and ftrace's ops_func callbacks
 * (bpf_trampoline_trylock(), shared_ops_func()). Any other function
 * changes under tr->mutex alone and waits for no link operation;
 * program-keyed trampolines never are multi-managed. A function becomes
 * multi-managed only with both mutexes held (multi_link_add()), and stops
 * being so with both (multi_link_del(), multi_stale_del()) or, at a
 * detach's end, with tramp_multi_mutex and a release (multi_link_unhold()):
 * the ordinary path asks under tr->mutex; a "no" holds while it keeps it,
 * and a "yes" sends it to take tramp_multi_mutex first and ask again.
 *
 * Read with neither held: tr->multi->loc_off, set once, once loc_known is
 * (multi_tr_known(), tracing_multi_link.c).
 *
 * Order: tramp_multi_mutex -> tr->mutex -> direct_mutex -> ftrace_lock.
 * ftrace calls the ops_func callbacks with direct_mutex held: they only
 * trylock the first two. trampoline_mutex (the table of trampolines) is
 * taken under tramp_multi_mutex to put a stale function's trampoline, and
 * tramp_dying_mutex (trampoline.c: images put that keep their exit
 * programs) under any of the first three; both take none of the four.
 *
 * A reroute in flight is a struct multi_reroute, on its caller's stack and
 * passed down: its plans, the images it touches, the ftrace change it
 * makes and its modes (a detach, frees deferred, direct_mutex held). Each
 * round (multi_reroute_once()) plans where every function goes, allocates
 * all the change needs, publishes it to ftrace, then commits it or, on
 * error, abandons it. ftrace's ops_func callbacks, which it causes while
 * it publishes the change, find it through the shared images it touches
 * (bpf_tramp_shared.reroute). What outlives the caller's frame: the
 * images it lets go, queued for the work item or, for a detach and for a
 * reroute that failed once published outside an ops_func callback, on
 * multi_deferred_puts (a detach's ftrace entries and ops on
 * multi_deferred_dead) for the bpf_tramp_multi_wait() that follows the
 * unlock (tr->multi_unlock_waits tells an ordinary holder to wait).
 */
#include <linux/bpf.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/filter.h>
#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/jhash.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/smp.h>
#include <linux/sort.h>

#include "trampoline.h"

struct bpf_tramp_shared {
	struct list_head list;		/* in tramp_shared_list */
	struct hlist_node hnode;	/* in tramp_shared_hash, by key */
	struct btf_func_model model;	/* see tramp_shared_model() */
	u8 ret_off;			/* function start to return address */
	u32 nr_links;
	struct bpf_tracing_multi_link **links;	/* sorted */
	struct bpf_tramp_image *im;
	struct ftrace_ops *ops;		/* its functions, NULL while none */
	struct list_head funcs;		/* functions routed here: multi->shared_node */
	u32 nr_funcs;
	bool dead;			/* jumps over a detached link: not planned to */
	u64 id;
	/* While a reroute plans it: on multi_reroute.touched. */
	struct list_head touched_node;
	struct multi_reroute *reroute;	/* that reroute, NULL if none */
	bool fresh;			/* created by that reroute */
	u32 nr_join, nr_leave;		/* functions joining, leaving */
	unsigned long *ips;		/* their ftrace locations, joining first */
	struct ftrace_ops *new_ops;	/* the ops of an image that had none */
};

/* How one function changes in a reroute. */
struct multi_plan {
	struct bpf_trampoline *tr;
	struct bpf_tramp_shared *next;	/* the shared image it goes to, or */
	struct bpf_tramp_image *own_im;	/* its own image (ordinary programs) */
	struct ftrace_ops *own_ops;	/* and the ops calling that, or */
	bool own_modify;		/* tr->fops, pointed at own_im in place */
	bool own_live;			/* tr->fops points at own_im */
	bool ipmodify;			/* planned for an IPMODIFY user */
	u32 own_flags;
};

/*
 * Images a commit lets go, put together by bpf_tramp_images_put(); one at
 * a time without memory for @ims (NULL).
 */
struct multi_image_puts {
	struct bpf_tramp_image **ims;
	u32 n, cap;
};

/* Images put once the CPUs that ran them with preemption off are out. */
struct multi_put_batch {
	struct llist_node node;
	u32 n;
	struct bpf_tramp_image *ims[];
};

/*
 * A reroute in flight (multi_reroute()): on its caller's stack, under
 * tramp_multi_mutex. The caller sets the plans and the modes; each round
 * of multi_reroute_once() plans, allocates, publishes, then commits or
 * abandons, and starts from an empty touched list and change.
 */
struct multi_reroute {
	struct multi_plan *plans;	/* one per function, sorted by address */
	u32 nr;
	/* modes, from the caller */
	bool lock_direct_mutex;	/* false: direct_mutex held (an ops_func callback) */
	/*
	 * A detach: the images it builds replace what the attach took, and
	 * are charged past bpf_jit_limit (the closing task may lack CAP_BPF).
	 */
	bool detaching;
	/*
	 * bpf_tramp_multi_wait() follows once the mutexes are released (a
	 * detach: its link's release work): what would wait goes to it, not
	 * to work items.
	 */
	bool deferring;
	/* planning: whether an IPMODIFY ops is registered, -1 until asked */
	int ipmodify;
	/*
	 * plans whose function has an image of its own now (nr_cur), gets
	 * one (nr_own), changed in place (nr_modify, of nr_own)
	 */
	u32 nr_cur, nr_own, nr_modify;
	struct list_head touched;	/* images whose functions change */
	u32 nr_touched;
	/* the change: ops to add and delete (backed by ops), to change in place */
	struct ftrace_direct_change change;
	struct ftrace_ops **ops;
	/* the images it lets go, or those it published if it fails */
	struct multi_image_puts puts;
	struct multi_put_batch *batch;
	bool published;			/* a CPU may enter its new images */
	/* functions SHARE_IPMODIFY_SELF flagged in this round (published) */
	u32 flagged;
	/*
	 * It failed once published, outside an ops_func callback: its
	 * images wait in multi_deferred_puts, and bpf_tramp_multi_wait()
	 * follows once the holder of tramp_multi_mutex has released it (a
	 * failed attach frees its program once that returns).
	 */
	bool abandoned;
};

/* The registries: tramp_multi_mutex guards each unless its comment says otherwise. */
static DEFINE_MUTEX(tramp_multi_mutex);
/* Every shared image; dead ones too. */
static LIST_HEAD(tramp_shared_list);
/* Shared images by key (model, patched-call offset, links), but dead ones. */
static DEFINE_HASHTABLE(tramp_shared_hash, 10);
/* The id of the last shared image created. */
static u64 tramp_shared_id;
/* multi_plan_one()'s: a function's links (not zeroed on the stack per function) */
static struct bpf_tracing_multi_link *plan_links[BPF_MAX_TRAMP_LINKS];
/* Functions with multi links and their own image, for debugfs. */
static LIST_HEAD(tramp_own_list);

/*
 * Functions whose image jumps over a detached link's programs, each holding
 * a reference to its trampoline (multi_link_skip(), multi_tidy()), and
 * their number.
 */
static LIST_HEAD(tramp_stale_list);
static u32 stale_cnt;
static void multi_tidy_workfn(struct work_struct *work);
static DECLARE_DELAYED_WORK(multi_tidy_work, multi_tidy_workfn);
/* The next multi_tidy() after one that left stale functions. */
static unsigned long tidy_delay = HZ / 10;

/*
 * Debug switch, <debugfs>/bpf_multi_tidy_hold (CONFIG_BPF_TRAMPOLINE_DEBUG):
 * while set, multi_tidy() leaves stale functions where they are, so that
 * tests can look at them. Read with READ_ONCE(), without the mutex.
 */
static bool tidy_hold;

static enum bpf_tramp_prog_type multi_link_kind(enum bpf_attach_type type)
{
	switch (type) {
	case BPF_TRACE_FEXIT_MULTI:
		return BPF_TRAMP_FEXIT;
	case BPF_MODIFY_RETURN_MULTI:
		return BPF_TRAMP_MODIFY_RETURN;
	default:
		return BPF_TRAMP_FENTRY;
	}
}

/*
 * Add @link to the programs of an image: an fsession link to the fentry
 * and to the fexit ones. Links come in the same order to both lists, which
 * the JIT relies on to give an fsession link one cookie for both runs.
 */
static void multi_link_tlinks_add(struct bpf_tramp_links *tlinks,
				  struct bpf_tracing_multi_link *link)
{
	struct bpf_tramp_links *tl = &tlinks[multi_link_kind(link->attach_type)];

	tl->links[tl->nr_links++] = &link->link;
	if (link->attach_type == BPF_TRACE_FSESSION_MULTI) {
		tl = &tlinks[BPF_TRAMP_FEXIT];
		tl->links[tl->nr_links++] = &link->link;
	}
}

/*
 * A function's ftrace location, where ftrace_ops and live patches find it.
 * Kept from its first multi link: ftrace_location() of a function's address
 * is a kallsyms lookup where the function starts with ENDBR (IBT).
 */
static unsigned long multi_tr_ftrace_ip(const struct bpf_trampoline *tr)
{
	return (unsigned long)tr->func.addr + tr->multi->loc_off;
}

static bool multi_tr_ipmodify(const struct bpf_trampoline *tr)
{
	return tr->flags & BPF_TRAMP_F_SHARE_IPMODIFY;
}

/* Distance from a function's start to the return address of its patched call. */
static u8 multi_tr_ret_off(struct bpf_trampoline *tr)
{
	return multi_tr_ftrace_ip(tr) + MCOUNT_INSN_SIZE - (unsigned long)tr->func.addr;
}

/* The multi links of @m's function, sorted by address: @m->nr_links of them. */
static struct bpf_tracing_multi_link *const *multi_links(const struct bpf_tramp_multi *m)
{
	return m->nr_links > 1 ? m->links : &m->link;
}

/* The multi links of @tr, sorted, into @links (BPF_MAX_TRAMP_LINKS long). */
static u32 multi_tr_links(struct bpf_trampoline *tr, struct bpf_tracing_multi_link **links)
{
	u32 n = tr->multi->nr_links;

	/* most have one: no call for it */
	if (n == 1)
		links[0] = tr->multi->link;
	else if (n)
		memcpy(links, tr->multi->links, n * sizeof(*links));
	return n;
}

/*
 * Add @link to @m's function's multi links, in address order. A function
 * with one keeps it in m->link, with more in a kmalloc()ed array: its
 * first link costs no allocation, each further one at most one.
 *
 * Not traced, as it runs once per function of a link (see
 * MULTI_RESCHED_BATCH); multi_links_del() is inlined for the same reason.
 *
 * Return: 0, or -ENOMEM with nothing changed.
 */
static notrace int multi_links_add(struct bpf_tramp_multi *m, struct bpf_tracing_multi_link *link)
{
	struct bpf_tracing_multi_link **links;
	u32 n = m->nr_links, i;

	if (!n) {
		m->link = link;
		m->nr_links = 1;
		return 0;
	}
	/* krealloc() keeps the array where it has room */
	links = krealloc_array(n > 1 ? m->links : NULL, n + 1, sizeof(*links), GFP_KERNEL_ACCOUNT);
	if (!links)
		return -ENOMEM;
	if (n == 1)
		links[0] = m->link;
	m->links = links;
	for (i = n; i && links[i - 1] > link; i--)
		links[i] = links[i - 1];
	links[i] = link;
	m->nr_links = n + 1;
	return 0;
}

/*
 * Take @link off @m's function's multi links: no allocation, never fails.
 * Always inlined (and so not traced, as no inline function is): a detach
 * runs it once per function while the link still runs on them
 * (multi_link_unlist()), and on a link on every function each traced call
 * would run its programs. Its kfree(), when a function goes from two links
 * to one, is such a call.
 */
static __always_inline void multi_links_del(struct bpf_tramp_multi *m,
					    struct bpf_tracing_multi_link *link)
{
	struct bpf_tracing_multi_link **links = m->links, *keep;
	u32 n = m->nr_links, i;

	if (WARN_ON_ONCE(!n))
		return;
	if (n == 1) {
		if (WARN_ON_ONCE(m->link != link))
			return;
		m->link = NULL;
		m->nr_links = 0;
		return;
	}
	for (i = 0; i < n && links[i] != link; i++)
		;
	if (WARN_ON_ONCE(i == n))
		return;
	if (n == 2) {
		keep = links[!i];
		kfree(links);
		m->link = keep;
	} else {
		memmove(&links[i], &links[i + 1], (n - i - 1) * sizeof(*links));
	}
	m->nr_links = n - 1;
}

/*
 * The arity class of a function: its model with every argument widened to
 * a full register (8 bytes) or, for a struct of more than 8, two; return
 * value 8 bytes. Functions of one class get the same trampoline code: the
 * same registers and stack slots saved, in the same ctx slots.
 */
static void tramp_shared_model(const struct btf_func_model *m, struct btf_func_model *sm)
{
	int i;

	memset(sm, 0, sizeof(*sm));
	sm->ret_size = 8;
	sm->nr_args = m->nr_args;
	for (i = 0; i < m->nr_args; i++) {
		sm->arg_size[i] = m->arg_size[i] > 8 ? 16 : 8;
		sm->arg_flags[i] = m->arg_flags[i] & BTF_FMODEL_STRUCT_ARG;
	}
}

/* Argument slots of a model: what bpf_get_func_arg_cnt() returns. */
static int multi_model_slots(const struct btf_func_model *m)
{
	int i, n = m->nr_args;

	for (i = 0; i < m->nr_args; i++)
		if (m->arg_flags[i] & BTF_FMODEL_STRUCT_ARG)
			n += DIV_ROUND_UP(m->arg_size[i], 8) - 1;
	return n;
}

/* The JIT's "cannot" (-ENOTSUPP, not a UAPI errno) as the syscall says it. */
static struct bpf_tramp_image *multi_image_errno(struct bpf_tramp_image *im)
{
	return PTR_ERR_OR_ZERO(im) == -ENOTSUPP ? ERR_PTR(-EOPNOTSUPP) : im;
}

/*
 * The loops over a reroute's or a link's functions call cond_resched()
 * once per MULTI_RESCHED_BATCH functions, and after each image JITed
 * (planning): a link on every function traces __cond_resched() too, and
 * a detaching link's functions are planned, and an attaching link's
 * committed, while it does, so each call would run its programs (and
 * those of other such links, in the other loops).
 */
#define MULTI_RESCHED_BATCH	64

static __always_inline void multi_resched_batch(u32 i)
{
	if (!(i % MULTI_RESCHED_BATCH))
		cond_resched();
}

/* @s gains (@delta > 0) or loses (< 0) a function in the change @r plans. */
static void multi_reroute_touch(struct multi_reroute *r, struct bpf_tramp_shared *s, int delta)
{
	if (!s)
		return;
	if (!s->reroute) {
		s->reroute = r;
		list_add_tail(&s->touched_node, &r->touched);
		r->nr_touched++;
	}
	if (delta > 0)
		s->nr_join++;
	else if (delta < 0)
		s->nr_leave++;
}

static u32 tramp_shared_key(const struct btf_func_model *sm, u8 ret_off,
			    struct bpf_tracing_multi_link **links, u32 n)
{
	return jhash(links, n * sizeof(*links), jhash(sm, sizeof(*sm), ret_off));
}

/* Whether the functions of class @sm running @links go to @s. */
static bool tramp_shared_match(const struct bpf_tramp_shared *s, const struct btf_func_model *sm,
			       u8 ret_off, struct bpf_tracing_multi_link **links, u32 n)
{
	return !memcmp(&s->model, sm, sizeof(*sm)) && s->ret_off == ret_off && !s->dead &&
	       s->nr_links == n && !memcmp(s->links, links, n * sizeof(*links));
}

static struct bpf_tramp_shared *
tramp_shared_find(const struct btf_func_model *sm, u8 ret_off,
		  struct bpf_tracing_multi_link **links, u32 n)
{
	u32 key = tramp_shared_key(sm, ret_off, links, n);
	struct bpf_tramp_shared *s;

	hash_for_each_possible(tramp_shared_hash, s, hnode, key) {
		if (tramp_shared_match(s, sm, ret_off, links, n))
			return s;
	}
	return NULL;
}

/* JIT a trampoline for the functions of class @sm running @links, for @r. */
static struct bpf_tramp_shared *
tramp_shared_create(struct multi_reroute *r, const struct btf_func_model *sm, u8 ret_off,
		    struct bpf_tracing_multi_link **links, u32 n)
{
	u32 flags = BPF_TRAMP_F_SHARED;
	void *func_addr = (void *)(unsigned long)ret_off;
	struct bpf_tramp_links *tlinks;
	struct bpf_tramp_shared *s;
	int i, err = -ENOMEM;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	tlinks = kcalloc(BPF_TRAMP_MAX, sizeof(*tlinks), GFP_KERNEL);
	if (!s || !tlinks)
		goto out_free;
	s->links = kmemdup(links, n * sizeof(*links), GFP_KERNEL);
	if (!s->links)
		goto out_free;
	s->model = *sm;
	s->ret_off = ret_off;
	s->nr_links = n;
	INIT_LIST_HEAD(&s->funcs);

	for (i = 0; i < BPF_TRAMP_MAX; i++)
		tlinks[i].skippable = true;	/* see multi_link_skip() */
	for (i = 0; i < n; i++)
		multi_link_tlinks_add(tlinks, links[i]);
	if (tlinks[BPF_TRAMP_FEXIT].nr_links || tlinks[BPF_TRAMP_MODIFY_RETURN].nr_links)
		flags |= BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME;
	else
		flags |= BPF_TRAMP_F_RESTORE_REGS;

	s->id = ++tramp_shared_id;
	s->im = multi_image_errno(bpf_tramp_image_build(&s->model, func_addr,
							s->id | (1ULL << 63), tlinks, flags,
							r->detaching));
	cond_resched();
	if (IS_ERR(s->im)) {
		err = PTR_ERR(s->im);
		goto out_free;
	}
	kfree(tlinks);
	s->fresh = true;
	list_add_tail(&s->list, &tramp_shared_list);
	hash_add(tramp_shared_hash, &s->hnode, tramp_shared_key(sm, ret_off, links, n));
	multi_reroute_touch(r, s, 0);	/* freed again if the change fails */
	return s;

out_free:
	if (s)
		kfree(s->links);
	kfree(s);
	kfree(tlinks);
	return ERR_PTR(err);
}

/**
 * bpf_tramp_multi_share_self - SHARE_IPMODIFY_SELF for a multi-managed function
 * @tr: the function, which an ops trampoline_multi.c registers finds shared
 *      with an IPMODIFY user
 *
 * Return: 0 if @tr's image was built for that (ORIG_STACK); else -EAGAIN,
 * and @tr is flagged, so that the reroute is planned again
 * (multi_reroute_flagged()).
 */
int bpf_tramp_multi_share_self(struct bpf_trampoline *tr)
{
	lockdep_assert_held(&tramp_multi_mutex);
	if (multi_tr_ipmodify(tr))
		return 0;
	tr->flags |= BPF_TRAMP_F_SHARE_IPMODIFY;
	return -EAGAIN;
}

bool bpf_tramp_multi_trylock(void)
{
	return mutex_trylock(&tramp_multi_mutex);
}

/* The function at @ip of the reroute @r, if any. */
static struct bpf_trampoline *multi_reroute_find_tr(const struct multi_reroute *r,
						    unsigned long ip)
{
	u32 i;

	for (i = 0; r && i < r->nr; i++)
		if (multi_tr_ftrace_ip(r->plans[i].tr) == ip)
			return r->plans[i].tr;
	return NULL;
}

static struct bpf_trampoline *tramp_shared_find_func(struct bpf_tramp_shared *s, unsigned long ip)
{
	struct bpf_tramp_multi *m;

	list_for_each_entry(m, &s->funcs, shared_node)
		if (multi_tr_ftrace_ip(m->tr) == ip)
			return m->tr;
	return NULL;
}

/*
 * ops_func_ip of a shared image's ops. Its IP comes from the return address,
 * which an IPMODIFY user changes: a function that gets one leaves for an
 * image of its own (PEER, before the user is registered), and one that has
 * one is not taken (SELF: plan again, see bpf_tramp_multi_share_self()).
 * The selftests trace it by this name (tracing_multi_livepatch.c).
 */
static int shared_ops_func(struct ftrace_ops *ops, unsigned long ip, enum ftrace_ops_cmd cmd)
{
	struct bpf_tramp_shared *s = ops->private;
	struct bpf_trampoline *tr;
	int err;

	switch (cmd) {
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_SELF:
		/* registered by the reroute touching it, which holds the mutex */
		tr = multi_reroute_find_tr(s->reroute, ip);
		return tr ? bpf_tramp_multi_share_self(tr) : -EBUSY;
	case FTRACE_OPS_CMD_ENABLE_SHARE_IPMODIFY_PEER:
		/* direct_mutex held: see bpf_tramp_ftrace_ops_func() */
		if (!mutex_trylock(&tramp_multi_mutex)) {
			usleep_range(1000, 2000);
			return -EAGAIN;
		}
		err = -ENOENT;
		tr = tramp_shared_find_func(s, ip);
		if (tr && !mutex_trylock(&tr->mutex)) {
			err = -EAGAIN;
			tr = NULL;
		}
		if (tr) {
			tr->flags |= BPF_TRAMP_F_SHARE_IPMODIFY;
			err = bpf_tramp_multi_update(tr, false);
			if (err)
				tr->flags &= ~BPF_TRAMP_F_SHARE_IPMODIFY;
			mutex_unlock(&tr->mutex);
		}
		/* nothing to wait for: an IPMODIFY callback's reroute does not */
		bpf_tramp_multi_mutex_unlock();
		if (err == -EAGAIN)
			usleep_range(1000, 2000);
		return err;
	default:
		/* DISABLE_PEER: a shared image has nothing to change */
		return 0;
	}
}

static void multi_ops_free(struct ftrace_ops *ops)
{
	if (!ops)
		return;
	ftrace_direct_verify_unused(0, ops);
	ftrace_free_filter(ops);
	kfree(ops);
}

static int multi_tr_ordinary_cnt(const struct bpf_trampoline *tr)
{
	int kind, cnt = 0;

	for (kind = 0; kind < BPF_TRAMP_MAX; kind++)
		cnt += tr->progs_cnt[kind];
	return cnt;
}

/**
 * bpf_tramp_multi_get_links - add @tr's multi links to its trampoline's
 * @tr: a function's trampoline
 * @tlinks: its programs per kind, from bpf_trampoline_get_progs()
 *
 * A function with ordinary programs and multi links has its own image,
 * which runs both. The link's bpf_tramp_link carries the link as cookie.
 *
 * Return: the number of links added.
 */
int bpf_tramp_multi_get_links(const struct bpf_trampoline *tr, struct bpf_tramp_links *tlinks)
{
	struct bpf_tracing_multi_link *const *links;
	u32 i;

	if (!tr->multi)		/* never had a multi link */
		return 0;
	links = multi_links(tr->multi);
	for (i = 0; i < tr->multi->nr_links; i++)
		multi_link_tlinks_add(tlinks, links[i]);
	return tr->multi->nr_links;
}

/* Build @p->tr's own image: its ordinary programs and its multi links. */
static int multi_plan_own(struct multi_reroute *r, struct multi_plan *p)
{
	struct bpf_trampoline *tr = p->tr;
	struct bpf_tramp_links *tlinks;
	struct bpf_tramp_image *im;
	struct ftrace_ops *ops;
	u32 flags;
	int total, err, kind;

	tlinks = bpf_trampoline_get_progs(tr, &total);
	if (IS_ERR(tlinks))
		return PTR_ERR(tlinks);
	for (kind = 0; kind < BPF_TRAMP_MAX; kind++)
		tlinks[kind].skippable = true;	/* see multi_link_skip() */
	flags = tr->flags & (BPF_TRAMP_F_TAIL_CALL_CTX | BPF_TRAMP_F_SHARE_IPMODIFY);
	if (tlinks[BPF_TRAMP_FEXIT].nr_links || tlinks[BPF_TRAMP_MODIFY_RETURN].nr_links) {
		flags |= BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME;
		/* call what the IPMODIFY user made of the function */
		if (multi_tr_ipmodify(tr))
			flags |= BPF_TRAMP_F_ORIG_STACK;
	} else {
		flags |= BPF_TRAMP_F_RESTORE_REGS;
	}
	im = multi_image_errno(bpf_tramp_image_build(&tr->func.model, tr->func.addr, tr->key,
						     tlinks, flags, r->detaching));
	kfree(tlinks);
	cond_resched();
	if (IS_ERR(im))
		return PTR_ERR(im);
	p->own_flags = flags;
	r->nr_own++;
	if (multi_tr_ipmodify(tr) && tr->cur_image) {
		/* changed in place, as an ordinary trampoline is: tr->fops to the image */
		p->own_im = im;
		p->own_modify = true;
		r->nr_modify++;
		return 0;
	}
	ops = kzalloc(sizeof(*ops), GFP_KERNEL);
	err = -ENOMEM;
	if (!ops)
		goto out_im;
	bpf_tramp_ftrace_ops_init(ops, tr);
	ops->direct_call = (unsigned long)im->image;
	err = ftrace_set_filter_ip(ops, multi_tr_ftrace_ip(tr), 0, 1);
	if (err)
		goto out_ops;
	p->own_im = im;
	p->own_ops = ops;
	return 0;
out_ops:
	multi_ops_free(ops);
out_im:
	bpf_tramp_image_free(im);
	return err;
}

/*
 * Where @p's function goes once the change @r plans is made. Whether an
 * IPMODIFY ops is registered is asked of ftrace once per round of @r.
 * @last: by argument count, the shared image the last function of that
 * count planned so far goes to, or NULL.
 */
static int multi_plan_one(struct multi_reroute *r, struct multi_plan *p,
			  struct bpf_tramp_shared **last)
{
	struct bpf_tracing_multi_link **links = plan_links;
	struct bpf_trampoline *tr = p->tr;
	struct btf_func_model sm;
	struct bpf_tramp_shared *s;
	u8 ret_off;
	u32 n;

	/* a function not routed yet: does a live patch have it? */
	if (!tr->multi->shared && !tr->cur_image) {
		if (r->ipmodify < 0)
			r->ipmodify = ftrace_ipmodify_registered();
		if (r->ipmodify && ftrace_location_ipmodify(multi_tr_ftrace_ip(tr)))
			tr->flags |= BPF_TRAMP_F_SHARE_IPMODIFY;
		else
			tr->flags &= ~BPF_TRAMP_F_SHARE_IPMODIFY;
	}
	p->ipmodify = multi_tr_ipmodify(tr);
	r->nr_cur += !!tr->cur_image;
	n = multi_tr_links(tr, links);
	if (multi_tr_ordinary_cnt(tr) || (n && multi_tr_ipmodify(tr)))
		return multi_plan_own(r, p);
	if (!n)
		return 0;
	ret_off = multi_tr_ret_off(tr);
	tramp_shared_model(&tr->func.model, &sm);
	/* most go where the last function of as many arguments went */
	s = last[sm.nr_args];
	if (!s || !tramp_shared_match(s, &sm, ret_off, links, n))
		s = tramp_shared_find(&sm, ret_off, links, n);
	if (!s) {
		s = tramp_shared_create(r, &sm, ret_off, links, n);
		if (IS_ERR(s))
			return PTR_ERR(s);
	}
	p->next = s;
	last[sm.nr_args] = s;
	return 0;
}

/* @s loses every function and gains none: its ops goes whole. */
static bool tramp_shared_emptied(const struct bpf_tramp_shared *s)
{
	return s->ops && !s->nr_join && s->nr_leave == s->nr_funcs;
}

/*
 * What the change does to each touched image: the functions that join
 * and leave it (s->ips), so that an image that has an ops changes it in
 * place (ftrace_direct_replace()'s @mod), and a new ops for an image
 * that has none. O(functions of the change), not of the images; nothing
 * per function if each touched image goes whole (a detach of the only
 * link of its functions).
 */
static int multi_reroute_plan_ips(struct multi_reroute *r)
{
	struct bpf_tramp_shared *s;
	struct ftrace_ops *ops;
	u32 i, nr_ips = 0;
	int err;

	list_for_each_entry(s, &r->touched, touched_node) {
		if ((!s->nr_join && !s->nr_leave) || tramp_shared_emptied(s))
			continue;
		s->ips = kvmalloc_array(s->nr_join + s->nr_leave, sizeof(*s->ips), GFP_KERNEL);
		if (!s->ips)
			return -ENOMEM;
		/* filled below: those that join first, then those that leave */
		s->nr_leave = s->nr_join;
		s->nr_join = 0;
		nr_ips++;
	}
	for (i = 0; i < r->nr && nr_ips; i++) {
		struct multi_plan *p = &r->plans[i];

		s = p->tr->multi->shared;
		if (p->next == s)
			continue;
		if (p->next)
			p->next->ips[p->next->nr_join++] = multi_tr_ftrace_ip(p->tr);
		if (s && s->ips)
			s->ips[s->nr_leave++] = multi_tr_ftrace_ip(p->tr);
	}
	list_for_each_entry(s, &r->touched, touched_node) {
		if (s->ips)
			s->nr_leave -= s->nr_join;
	}
	list_for_each_entry(s, &r->touched, touched_node) {
		if (s->ops || !s->nr_join)
			continue;
		/* an image with no functions yet: a new ops for those that join */
		ops = kzalloc(sizeof(*ops), GFP_KERNEL);
		if (!ops)
			return -ENOMEM;
		ops->private = s;
		ops->ops_func_ip = shared_ops_func;
		ops->direct_call = (unsigned long)s->im->image;
		err = ftrace_set_filter_ips(ops, s->ips, s->nr_join, 0, 1);
		if (err) {
			multi_ops_free(ops);
			return err;
		}
		s->new_ops = ops;
	}
	return 0;
}

/* Forget what multi_reroute_plan_ips() planned for @s. */
static void tramp_shared_plan_clear(struct bpf_tramp_shared *s)
{
	kvfree(s->ips);
	s->ips = NULL;
	s->nr_join = 0;
	s->nr_leave = 0;
	s->reroute = NULL;
}

/* The batches multi_put_work puts (lockless). */
static LLIST_HEAD(multi_put_list);

/* Put the images of the batches on @list, after a rude grace period. */
static void multi_put_batches_free(struct llist_node *list)
{
	struct multi_put_batch *b, *tmp;

	llist_for_each_entry_safe(b, tmp, list, node) {
		bpf_tramp_images_put_skipped(b->ims, b->n);
		bpf_tramp_images_dying_add(-b->n);
		kvfree(b);
		cond_resched();
	}
}

/*
 * What ftrace's wait for the ops a reroute removed gave their images
 * before ftrace_direct_change.release: RCU-tasks (which the image puts
 * wait for) does not see a CPU that runs one in the idle loop; a rude
 * grace period does. One for all the batches queued. Their fexit
 * programs were jumped over when queued, but where calls in flight still
 * need them (bpf_tramp_images_retire()).
 */
static void multi_put_workfn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&multi_put_list);

	synchronize_rcu_tasks_rude();
	multi_put_batches_free(list);
}

static DECLARE_WORK(multi_put_work, multi_put_workfn);

/*
 * What a detach's reroutes leave to bpf_tramp_multi_wait() instead of
 * work items: the ftrace entries and ops (ftrace_direct_change.defer) and
 * the image batches. The detach's release work waits for the same grace
 * periods anyway; a work item asking for a rude one just before it would
 * make the release work's start HZ / 10 later (the RCU-tasks kthread's
 * pause between grace periods).
 */
static LLIST_HEAD(multi_deferred_dead);
static LLIST_HEAD(multi_deferred_puts);

/*
 * Queue @b for the work item or, for a reroute @deferring (a detach),
 * for the bpf_tramp_multi_wait() that follows the detach.
 */
static void multi_put_batch_queue(struct multi_put_batch *b, bool deferring)
{
	lockdep_assert_held(&tramp_multi_mutex);
	if (deferring) {
		llist_add(&b->node, &multi_deferred_puts);
		return;
	}
	llist_add(&b->node, &multi_put_list);
	queue_work(system_unbound_wq, &multi_put_work);
}

static void multi_put_image(struct multi_image_puts *b, struct bpf_tramp_image *im)
{
	if (b && b->ims && !WARN_ON_ONCE(b->n >= b->cap))
		b->ims[b->n++] = im;
	else
		bpf_tramp_image_put(im);
}

/* Free @s; its image, if @used, goes to @puts (NULL: now); no image: s->im NULL. */
static void tramp_shared_free(struct bpf_tramp_shared *s, bool used, struct multi_image_puts *puts)
{
	list_del(&s->list);
	hash_del(&s->hnode);
	if (used)
		multi_put_image(puts, s->im);
	else if (s->im)
		bpf_tramp_image_free(s->im);
	kfree(s->links);
	kfree(s);
}

/*
 * Record @p's new route once ftrace switched to it; the image left goes to
 * @puts. ftrace frees the ops the change unregistered.
 */
static void multi_plan_commit(struct multi_plan *p, struct multi_image_puts *puts)
{
	struct bpf_trampoline *tr = p->tr;
	bool unregistered = tr->cur_image && !p->own_modify;
	bool idle = !tr->cur_image;	/* its tr->fops, if any, is not registered */
	struct bpf_tramp_multi *m = tr->multi;

	list_del_init(&m->shared_node);
	if (m->shared)
		m->shared->nr_funcs--;
	m->shared = p->next;
	if (p->next) {
		list_add_tail(&m->shared_node, &p->next->funcs);
		p->next->nr_funcs++;
	}
	if (tr->cur_image)
		multi_put_image(puts, tr->cur_image);
	tr->cur_image = p->own_im;
	/*
	 * tr->fops was unregistered (ftrace frees it), or is not registered
	 * (NULL, or one the ordinary path allocated: freed here). The
	 * function's own ops replaces it if it keeps an image, else none:
	 * register_fentry() allocates one if the ordinary path registers the
	 * function again.
	 */
	if (idle && tr->fops)
		multi_ops_free(tr->fops);
	if (idle || unregistered)
		tr->fops = p->own_ops;
	if (p->own_ops)
		tr->func.ftrace_managed = true;
	if (p->own_ops || p->own_modify) {
		tr->flags = p->own_flags;
		/* not tr->multi_cnt: a detaching link counts there */
		if (m->nr_links)
			list_add_tail(&m->shared_node, &tramp_own_list);
	}
}

/* Point tr->fops of each own_modify plan of @r at its new image (@undo: back). */
static int multi_reroute_modify(struct multi_reroute *r, bool undo)
{
	u32 i;
	int err;

	if (!r->nr_modify)
		return 0;
	for (i = 0; i < r->nr; i++) {
		struct multi_plan *p = &r->plans[i];
		void *addr;

		if (!p->own_modify || p->own_live != undo)
			continue;
		addr = undo ? p->tr->cur_image->image : p->own_im->image;
		if (r->lock_direct_mutex)
			err = modify_ftrace_direct(p->tr->fops, (unsigned long)addr);
		else
			err = modify_ftrace_direct_nolock(p->tr->fops, (unsigned long)addr);
		if (err)
			return err;
		p->own_live = !undo;
	}
	return 0;
}

/*
 * After a failed reroute, rolled back: the images @r published (own images
 * and fresh shared ones) are no longer reachable, but a CPU may be in one,
 * even from the idle loop, on its way to a program that may go once the
 * attach fails. Jump over their fexit programs first (a task may return
 * into one from the function); the holder of tramp_multi_mutex waits as
 * ftrace_shutdown() does once it has released it (r->abandoned), and the
 * images, which go into r->batch (multi_reroute_abandon_put()), are put
 * after the rude grace period of that wait. An IPMODIFY callback
 * (ftrace's ops_func, with direct_mutex held) lets no program go and does
 * not wait: a work item puts the images (see multi_reroute_abandon()). A
 * sleepable program may sleep in one and read its link after: not waited
 * for there (a syscall program may be attaching, inside
 * rcu_read_lock_trace()); the failed link is freed after that grace
 * period instead (free_trace).
 */
static void multi_reroute_skip_published(struct multi_reroute *r)
{
	struct bpf_tramp_shared *s;
	u32 i;

	for (i = 0; i < r->nr; i++) {
		if (r->plans[i].own_im && !r->plans[i].own_live)
			bpf_tramp_images_skip(&r->plans[i].own_im, 1);
	}
	list_for_each_entry(s, &r->touched, touched_node) {
		if (s->fresh)
			bpf_tramp_images_skip(&s->im, 1);
	}
	r->batch->n = 0;
}

/* Put @im, skipped by multi_reroute_skip_published(), with the batch @b. */
static void multi_reroute_abandon_put(struct multi_put_batch *b, struct bpf_tramp_image *im)
{
	b->ims[b->n++] = im;
}

/* Plan: where each function of @r goes, and which images that touches. */
static int multi_reroute_plan(struct multi_reroute *r)
{
	struct bpf_tramp_shared *last[MAX_BPF_FUNC_ARGS + 1] = {};
	u32 i;
	int err = 0;

	for (i = 0; i < r->nr && !err; i++) {
		err = multi_plan_one(r, &r->plans[i], last);
		multi_resched_batch(i);
	}
	if (err)
		return err;
	for (i = 0; i < r->nr; i++) {
		struct multi_plan *p = &r->plans[i];

		if (p->next == p->tr->multi->shared)
			continue;
		multi_reroute_touch(r, p->tr->multi->shared, -1);
		multi_reroute_touch(r, p->next, 1);
	}
	return 0;
}

/*
 * Allocate what publishing and committing @r's change take, so that
 * neither allocates: ftrace's ops arrays (the functions' own ops put in),
 * the batch of images to put, and the touched images' ips and new ops.
 */
static int multi_reroute_alloc(struct multi_reroute *r)
{
	struct ftrace_direct_change *c = &r->change;
	u32 i;

	/*
	 * Added: the functions' new own ops and the touched images' new ops;
	 * deleted: the ops of the own images let go and of touched images.
	 */
	r->ops = kvcalloc(2 * r->nr_touched + r->nr_own + r->nr_cur, sizeof(*r->ops), GFP_KERNEL);
	c->mod = kvcalloc(r->nr_touched, sizeof(*c->mod), GFP_KERNEL);
	if (!r->ops || (r->nr_touched && !c->mod))
		return -ENOMEM;
	c->add = r->ops;
	c->del = c->add + r->nr_touched + r->nr_own;
	/*
	 * ftrace frees the ops that leave after their grace period, and
	 * nothing waits for it here, under tramp_multi_mutex: a work item
	 * does, or, in a detach (whose program may go after the wait),
	 * bpf_tramp_multi_wait() once the mutexes are released (c->defer).
	 */
	c->release = multi_ops_free;
	c->defer = r->deferring ? &multi_deferred_dead : NULL;
	for (i = 0; i < r->nr && (r->nr_own || r->nr_cur); i++) {
		struct multi_plan *p = &r->plans[i];

		if (p->own_ops)
			c->add[c->nr_add++] = p->own_ops;
		if (p->tr->cur_image && !p->own_modify)
			c->del[c->nr_del++] = p->tr->fops;
	}
	/*
	 * The images let go, put together: those left once the change is
	 * done (the functions' own images and the touched images) or those
	 * it published if it fails (the new own images and fresh shared
	 * ones; multi_reroute_skip_published()). Allocated before either, so
	 * that neither waits with tramp_multi_mutex held.
	 */
	r->puts.cap = r->nr_cur + r->nr_own + r->nr_touched;
	r->batch = kvmalloc(struct_size(r->batch, ims, r->puts.cap), GFP_KERNEL | __GFP_NOWARN);
	if (!r->batch)
		return -ENOMEM;
	r->puts.ims = r->batch->ims;
	return multi_reroute_plan_ips(r);
}

/* The touched images' part of @r's change: ops added, deleted, changed in place. */
static void multi_reroute_fill_change(struct multi_reroute *r)
{
	struct ftrace_direct_change *c = &r->change;
	struct bpf_tramp_shared *s;

	list_for_each_entry(s, &r->touched, touched_node) {
		if (s->new_ops) {
			c->add[c->nr_add++] = s->new_ops;
		} else if (tramp_shared_emptied(s)) {
			c->del[c->nr_del++] = s->ops;
		} else if (s->ops && (s->nr_join || s->nr_leave)) {
			/* in place: the functions it keeps are not touched */
			c->mod[c->nr_mod++] = (struct ftrace_direct_mod) {
				.ops = s->ops,
				.take = s->ips,
				.nr_take = s->nr_join,
				.drop = s->ips + s->nr_join,
				.nr_drop = s->nr_leave,
			};
		}
	}
}

/*
 * The functions of @r that ftrace found sharing their function with an
 * IPMODIFY user while @r published its change, though they were not
 * planned for one: bpf_tramp_multi_share_self() flagged them, and @r
 * plans again. ftrace asks in the task that publishes, about ops that
 * only @r registers or changes: a function's own ops (its trampoline's
 * ops_func) and a shared image's (shared_ops_func(), through
 * bpf_tramp_shared.reroute).
 */
static u32 multi_reroute_flagged(const struct multi_reroute *r)
{
	u32 i, n = 0;

	for (i = 0; i < r->nr; i++)
		n += multi_tr_ipmodify(r->plans[i].tr) && !r->plans[i].ipmodify;
	return n;
}

/*
 * Publish: switch the functions of @r to their new routes, own_modify ones
 * first, then all others in one ftrace_direct_replace(). From here a CPU
 * may enter the new images, even if this fails; on error the functions
 * are where they were, and the images published are jumped over.
 */
static int multi_reroute_publish(struct multi_reroute *r)
{
	int err;

	/*
	 * From here a CPU may enter the new images, even if this fails; and
	 * ftrace may ask SHARE_IPMODIFY_SELF of these functions (see
	 * multi_reroute_flagged()).
	 */
	r->published = true;
	err = multi_reroute_modify(r, false);
	if (!err && r->lock_direct_mutex)
		err = ftrace_direct_replace(&r->change);
	else if (!err)
		err = ftrace_direct_replace_nolock(&r->change);
	/* modify_ftrace_direct() back to images that are still there */
	if (err)
		WARN_ON_ONCE(multi_reroute_modify(r, true));
	if (err)
		multi_reroute_skip_published(r);
	return err;
}

/* Commit: record the new routes of @r, free what is no longer used. */
static void multi_reroute_commit(struct multi_reroute *r)
{
	struct bpf_tramp_shared *s, *tmp;
	u32 i;

	for (i = 0; i < r->nr; i++) {
		multi_plan_commit(&r->plans[i], &r->puts);
		multi_resched_batch(i);
	}
	list_for_each_entry_safe(s, tmp, &r->touched, touched_node) {
		list_del(&s->touched_node);
		if (s->new_ops || !s->nr_funcs) {
			/* an ops here left in c.del, if any: ftrace frees it */
			s->ops = s->new_ops;
		}
		s->new_ops = NULL;
		s->fresh = false;
		tramp_shared_plan_clear(s);
		if (!s->nr_funcs)
			tramp_shared_free(s, true, &r->puts);
	}
	if (r->puts.n) {
		r->batch->n = r->puts.n;
		/*
		 * now, as bpf_tramp_image_put(): a program may go after the
		 * wait. Calls in flight in them run the exit programs of the
		 * links that stay; a link that goes is jumped over as it goes.
		 */
		bpf_tramp_images_retire(r->batch->ims, r->puts.n);
		bpf_tramp_images_dying_add(r->puts.n);
		multi_put_batch_queue(r->batch, r->deferring);
	} else {
		kvfree(r->batch);
	}
	r->batch = NULL;
}

/* Undo what planning @p built; an image published goes to @r's batch. */
static void multi_plan_abandon(struct multi_reroute *r, struct multi_plan *p)
{
	multi_ops_free(p->own_ops);
	/* own_live: the undo failed, and it stays reachable (leaked) */
	if (p->own_im && !p->own_live && r->published)
		multi_reroute_abandon_put(r->batch, p->own_im);
	else if (p->own_im && !p->own_live)
		bpf_tramp_image_free(p->own_im);
	p->own_ops = NULL;
	p->own_im = NULL;
	p->own_modify = false;
	p->own_live = false;
	p->next = NULL;
}

/*
 * Abandon: undo what planning and allocating @r built. If it published,
 * the images it made go with the batch: to the holder's
 * bpf_tramp_multi_wait() (r->abandoned) or, in an ops_func callback, to
 * the work item.
 */
static void multi_reroute_abandon(struct multi_reroute *r)
{
	struct bpf_tramp_shared *s, *tmp;
	u32 i;

	for (i = 0; i < r->nr; i++)
		multi_plan_abandon(r, &r->plans[i]);
	list_for_each_entry_safe(s, tmp, &r->touched, touched_node) {
		list_del(&s->touched_node);
		multi_ops_free(s->new_ops);
		s->new_ops = NULL;
		tramp_shared_plan_clear(s);
		if (s->fresh && r->published) {
			multi_reroute_abandon_put(r->batch, s->im);
			s->im = NULL;
		}
		if (s->fresh)
			tramp_shared_free(s, false, NULL);
	}
	if (r->published && r->batch->n && r->lock_direct_mutex) {
		/* abandoned: put by the holder's bpf_tramp_multi_wait() */
		bpf_tramp_images_dying_add(r->batch->n);
		llist_add(&r->batch->node, &multi_deferred_puts);
		r->abandoned = true;
	} else if (r->published && r->batch->n) {
		/* in an IPMODIFY callback, direct_mutex held: the work item puts them */
		bpf_tramp_images_dying_add(r->batch->n);
		multi_put_batch_queue(r->batch, r->deferring);
	} else {
		kvfree(r->batch);
	}
	r->batch = NULL;
}

/*
 * One round of multi_reroute(): route each function of @r where its
 * programs and multi links say: its own image, a shared one, or nowhere.
 * One ftrace_direct_replace() switches them all, or on error none.
 */
static int multi_reroute_once(struct multi_reroute *r)
{
	int err;

	lockdep_assert_held(&tramp_multi_mutex);
	INIT_LIST_HEAD(&r->touched);
	r->nr_touched = 0;
	r->nr_cur = 0;
	r->nr_own = 0;
	r->nr_modify = 0;
	r->ipmodify = -1;
	memset(&r->change, 0, sizeof(r->change));
	r->ops = NULL;
	memset(&r->puts, 0, sizeof(r->puts));
	r->batch = NULL;
	r->published = false;
	r->flagged = 0;

	err = multi_reroute_plan(r);
	if (!err)
		err = multi_reroute_alloc(r);
	if (!err) {
		multi_reroute_fill_change(r);
		err = multi_reroute_publish(r);
		if (err == -EAGAIN)
			r->flagged = multi_reroute_flagged(r);
	}
	if (!err)
		multi_reroute_commit(r);
	else
		multi_reroute_abandon(r);
	kvfree(r->change.mod);
	kvfree(r->ops);
	return err;
}

/*
 * Route each function of r->plans (sorted by address) where its programs
 * and multi links say, with r's modes; planned again while ftrace finds
 * another function with an IPMODIFY user (a live patch that came since it
 * was planned, or one that came without a callback). Sets r->abandoned if
 * a round had to (multi_reroute_abandon()).
 */
static int multi_reroute(struct multi_reroute *r)
{
	int err;

	/* each round flags one more function: it ends */
	do {
		err = multi_reroute_once(r);
	} while (err == -EAGAIN && r->flagged);
	return err;
}

/* multi_reroute() of @tr alone, with @r's modes. */
static int multi_reroute_tr(struct multi_reroute *r, struct bpf_trampoline *tr)
{
	struct multi_plan plan = { .tr = tr };
	int err;

	r->plans = &plan;
	r->nr = 1;
	err = multi_reroute(r);
	r->plans = NULL;
	r->nr = 0;
	return err;
}

/* multi_reroute() of @link's functions, with @r's modes. */
static int multi_link_reroute(struct bpf_tracing_multi_link *link, struct multi_reroute *r)
{
	u32 i;
	int err;

	/* not zeroed by the allocator: each plan is set whole below */
	r->plans = kvmalloc_array(link->cnt, sizeof(*r->plans), GFP_KERNEL);
	if (!r->plans)
		return -ENOMEM;
	r->nr = link->cnt;
	for (i = 0; i < link->cnt; i++)
		r->plans[i] = (struct multi_plan) { .tr = link->funcs[i].tr };
	err = multi_reroute(r);
	kvfree(r->plans);
	r->plans = NULL;
	r->nr = 0;
	return err;
}

/**
 * bpf_tramp_multi_update - bpf_trampoline_update() of a function with multi links
 * @tr: the function's trampoline; tramp_multi_mutex and tr->mutex held
 * @lock_direct_mutex: false when called with direct_mutex held (ops_func)
 *
 * If the reroute fails once a CPU could enter its images, the holder's
 * bpf_tramp_multi_unlock() waits for them (tr->multi_unlock_waits): the
 * ordinary path passes nothing else from the update to the unlock. Not
 * multi_deferred_puts being non-empty: a detach that released the mutex
 * may take this holder's images from it, and the holder must still wait.
 *
 * Return: 0 or a negative errno; on error the function's route is unchanged.
 */
int bpf_tramp_multi_update(struct bpf_trampoline *tr, bool lock_direct_mutex)
{
	struct multi_reroute r = { .lock_direct_mutex = lock_direct_mutex };
	int err;

	lockdep_assert_held(&tramp_multi_mutex);
	lockdep_assert_held(&tr->mutex);
	err = multi_reroute_tr(&r, tr);
	if (r.abandoned)
		tr->multi_unlock_waits = true;
	return err;
}

/**
 * bpf_tramp_multi_lock - take tramp_multi_mutex, for a multi-managed function
 *
 * See bpf_trampoline_lock(). Release it with bpf_tramp_multi_unlock(), or
 * with bpf_tramp_multi_mutex_unlock() if no bpf_tramp_multi_update() with
 * @lock_direct_mutex was made.
 */
void bpf_tramp_multi_lock(void)
{
	mutex_lock(&tramp_multi_mutex);
}

/**
 * bpf_tramp_multi_unlock - release @tr's mutex and tramp_multi_mutex after an update
 * @tr: the function's trampoline
 *
 * If an update of @tr failed once a CPU could enter its images
 * (multi_reroute_skip_published(); outside IPMODIFY callbacks, see
 * multi_reroute_abandon()), wait as ftrace_shutdown() would have, now
 * that the mutexes are free: a failed attach frees its program once this
 * returns. The wait puts the images too.
 *
 * Context: tramp_multi_mutex and tr->mutex held; may sleep.
 */
void bpf_tramp_multi_unlock(struct bpf_trampoline *tr)
{
	bool wait = tr->multi_unlock_waits;

	lockdep_assert_held(&tramp_multi_mutex);
	lockdep_assert_held(&tr->mutex);
	tr->multi_unlock_waits = false;
	mutex_unlock(&tr->mutex);
	mutex_unlock(&tramp_multi_mutex);
	if (wait)
		bpf_tramp_multi_wait();
}

/**
 * bpf_tramp_multi_mutex_unlock - release tramp_multi_mutex, nothing else
 *
 * For a holder that rerouted nothing (it found the function no longer
 * multi-managed, or could not take tr->mutex), or only in an IPMODIFY
 * callback, whose failed reroute leaves nothing to wait for.
 */
void bpf_tramp_multi_mutex_unlock(void)
{
	mutex_unlock(&tramp_multi_mutex);
}

static int multi_plan_cmp_addr(const void *a, const void *b)
{
	const struct multi_plan *x = a, *y = b;
	unsigned long xa = (unsigned long)x->tr->func.addr;
	unsigned long ya = (unsigned long)y->tr->func.addr;

	return xa < ya ? -1 : xa > ya;
}

/* The module of a stale function's address, or NULL (vmlinux). */
static struct module *multi_stale_module(struct bpf_trampoline *tr)
{
	struct module *mod;

	preempt_disable();
	mod = __module_address((unsigned long)tr->func.addr);
	preempt_enable();
	return mod;
}

/*
 * @tr stays routed to an image that jumps over a detached program: keep it,
 * and its module, until multi_tidy() routes it again. Allocates nothing.
 */
static void multi_stale_add(struct bpf_trampoline *tr)
{
	lockdep_assert_held(&tramp_multi_mutex);
	if (!list_empty(&tr->multi->stale_node))
		return;
	refcount_inc(&tr->refcnt);	/* the detaching link still holds one */
	__module_get(multi_stale_module(tr));
	list_add_tail(&tr->multi->stale_node, &tramp_stale_list);
	stale_cnt++;
}

static void multi_stale_del(struct bpf_trampoline *tr)
{
	lockdep_assert_held(&tramp_multi_mutex);
	/* it may stop being multi-managed: tr->mutex too */
	mutex_lock(&tr->mutex);
	list_del_init(&tr->multi->stale_node);
	mutex_unlock(&tr->mutex);
	stale_cnt--;
	module_put(multi_stale_module(tr));
	/* routed now only if links or programs hold it */
	bpf_trampoline_put(tr);
}

/*
 * Route the functions on tramp_stale_list again, away from images that jump
 * over detached programs, and let them go. All in one reroute; if that
 * fails, one function at a time, so that one that cannot move keeps no
 * other. Tried again later, less and less often, while some remain.
 *
 * @deferring: the caller, a detach, has bpf_tramp_multi_wait() follow once
 * it has released the mutex (see struct multi_reroute).
 *
 * Return: whether a reroute was abandoned (multi_reroute_abandon()): then
 * bpf_tramp_multi_wait() must follow once the mutex is released (a
 * detach has it follow anyway).
 */
static bool multi_tidy(bool deferring)
{
	/* it frees more than it takes, whoever runs it: .detaching */
	struct multi_reroute r = {
		.lock_direct_mutex = true,
		.detaching = true,
		.deferring = deferring,
	};
	struct bpf_tramp_multi *m, *tmp;
	int err = -ENOMEM;
	u32 n = 0;

	lockdep_assert_held(&tramp_multi_mutex);
	if (!stale_cnt)
		return false;
	if (IS_ENABLED(CONFIG_BPF_TRAMPOLINE_DEBUG) && READ_ONCE(tidy_hold)) {
		schedule_delayed_work(&multi_tidy_work, HZ / 10);
		return false;
	}
	r.plans = kvcalloc(stale_cnt, sizeof(*r.plans), GFP_KERNEL);
	if (r.plans) {
		list_for_each_entry(m, &tramp_stale_list, stale_node)
			r.plans[n++].tr = m->tr;
		r.nr = n;
		sort(r.plans, n, sizeof(*r.plans), multi_plan_cmp_addr, NULL);
		err = multi_reroute(&r);
		kvfree(r.plans);
		r.plans = NULL;
	}
	list_for_each_entry_safe(m, tmp, &tramp_stale_list, stale_node) {
		if (!err || !multi_reroute_tr(&r, m->tr))
			multi_stale_del(m->tr);
		cond_resched();
	}
	if (stale_cnt) {
		schedule_delayed_work(&multi_tidy_work, tidy_delay);
		tidy_delay = min(tidy_delay * 2, 60UL * HZ);
	} else {
		tidy_delay = HZ / 10;
	}
	return r.abandoned;
}

static void multi_tidy_workfn(struct work_struct *work)
{
	bool abandoned;

	mutex_lock(&tramp_multi_mutex);
	abandoned = multi_tidy(false);
	mutex_unlock(&tramp_multi_mutex);
	/* as bpf_tramp_multi_unlock() */
	if (abandoned)
		bpf_tramp_multi_wait();
}

/* Jump over @link's programs in @s's image; false if it has none. */
static bool tramp_shared_skip_link(struct bpf_tramp_shared *s, struct bpf_tracing_multi_link *link)
{
	u32 i;

	for (i = 0; i < s->nr_links && s->links[i] != link; i++)
		;
	if (i == s->nr_links)
		return false;
	/* its key changes, and planning no longer picks it */
	hash_del(&s->hnode);
	memmove(&s->links[i], &s->links[i + 1], (s->nr_links - i - 1) * sizeof(*s->links));
	s->nr_links--;
	s->dead = true;
	bpf_tramp_image_skip_link(s->im, &link->link);
	return true;
}

/*
 * Detach @link without allocating, when its reroute failed (no memory, no
 * JIT space): every image running its programs jumps over them from now
 * on, and runs the other links as before. Its functions stay on those
 * images until multi_tidy() moves them.
 */
static void multi_link_skip(struct bpf_tracing_multi_link *link)
{
	u32 i;

	lockdep_assert_held(&tramp_multi_mutex);
	for (i = 0; i < link->cnt; i++) {
		struct bpf_trampoline *tr = link->funcs[i].tr;
		bool stale;

		if (tr->multi->shared) {
			tramp_shared_skip_link(tr->multi->shared, link);
			stale = tr->multi->shared->dead;
		} else {
			stale = tr->cur_image &&
				bpf_tramp_image_skip_link(tr->cur_image, &link->link);
		}
		if (stale)
			multi_stale_add(tr);
		cond_resched();
	}
}

/**
 * bpf_tramp_multi_unlink - detach an ordinary program from a multi-managed function
 * @tr: the function's trampoline, the program already off its lists;
 *      tramp_multi_mutex and tr->mutex held
 * @link: the program's link
 *
 * Like a multi link's detach, this does not fail: if the function's image
 * cannot be rebuilt without the program, its own image jumps over it.
 *
 * Return: 0, or an errno if the image did not run the program.
 */
int bpf_tramp_multi_unlink(struct bpf_trampoline *tr, struct bpf_tramp_link *link)
{
	struct multi_reroute r = {
		.lock_direct_mutex = true,
		.detaching = true,
		.deferring = true,
	};
	int err;

	lockdep_assert_held(&tramp_multi_mutex);
	lockdep_assert_held(&tr->mutex);
	/* the caller's bpf_tramp_multi_wait() is also r.abandoned's */
	err = multi_reroute_tr(&r, tr);
	if (!err || !tr->cur_image || !bpf_tramp_image_skip_link(tr->cur_image, link))
		return err;
	multi_stale_add(tr);
	schedule_delayed_work(&multi_tidy_work, 0);
	return 0;
}

/**
 * bpf_tramp_multi_wait - wait as ftrace_shutdown() after a detach's reroutes
 *
 * Called after a detach that rerouted functions under tramp_multi_mutex (a
 * multi link's release work, an ordinary program's detach beside multi
 * links), with the mutexes released. Returns once no task can be on its way to a
 * program the detach let go, and frees what the reroutes left to it. It
 * takes all that is queued before its waits start, whichever detach
 * queued it: an item is queued only once nothing reaches it, so the grace
 * periods that follow cover it. It may so free another detach's items,
 * in batches with cond_resched() between them. Also called after a
 * failed reroute (multi_reroute_abandon(): bpf_tramp_multi_unlock(), a
 * failed attach, multi_tidy_workfn()), but not in an IPMODIFY callback,
 * whose images the work item puts.
 *
 * Context: process context, may sleep; no trampoline mutex held, nor
 * ftrace's direct_mutex.
 */
void bpf_tramp_multi_wait(void)
{
	struct llist_head dead = { .first = llist_del_all(&multi_deferred_dead) };
	struct llist_node *puts = llist_del_all(&multi_deferred_puts);

	/* waiting under it would hold up every link operation */
	lockdep_assert_not_held(&tramp_multi_mutex);
	synchronize_rcu_tasks_rude();
	/* as multi_put_workfn(): their grace periods start after the rude one */
	multi_put_batches_free(puts);
	synchronize_rcu_tasks();
	ftrace_direct_deferred_free(&dead);
}

/*
 * Take the first @cnt functions of @link off their trampolines, after a
 * failed attach. A function stops being multi-managed with its last multi
 * link: under tr->mutex too.
 */
static void multi_link_del(struct bpf_tracing_multi_link *link, u32 cnt)
{
	int fsession = link->attach_type == BPF_TRACE_FSESSION_MULTI;
	u32 i;

	lockdep_assert_held(&tramp_multi_mutex);
	for (i = 0; i < cnt; i++) {
		struct bpf_tracing_multi_func *f = &link->funcs[i];
		struct bpf_trampoline *tr = f->tr;

		mutex_lock(&tr->mutex);
		multi_links_del(tr->multi, link);
		tr->multi_cnt--;
		tr->fsession_cnt -= fsession;
		mutex_unlock(&tr->mutex);
		multi_resched_batch(i);
	}
}

/*
 * Add @link's functions to their trampolines, all or (on error) none. A
 * function becomes multi-managed with its first multi link: under
 * tr->mutex too.
 */
static int multi_link_add(struct bpf_tracing_multi_link *link)
{
	int fsession = link->attach_type == BPF_TRACE_FSESSION_MULTI;
	u32 i;
	int err = 0;

	lockdep_assert_held(&tramp_multi_mutex);
	for (i = 0; i < link->cnt && !err; i++) {
		struct bpf_tracing_multi_func *f = &link->funcs[i];
		struct bpf_trampoline *tr = f->tr;

		mutex_lock(&tr->mutex);
		if (tr->extension_prog) {
			err = -EBUSY;
		} else if (multi_tr_ordinary_cnt(tr) + tr->multi_cnt + tr->fsession_cnt +
			   fsession >= BPF_MAX_TRAMP_LINKS) {
			/* an fsession link runs twice: it counts twice */
			err = -E2BIG;
		} else {
			err = multi_links_add(tr->multi, link);
		}
		if (!err) {
			if (!tr->multi->loc_known) {
				tr->multi->loc_off = f->loc_off;
				/* release: loc_off and func.addr, for multi_tr_known() */
				smp_store_release(&tr->multi->loc_known, true);
			}
			tr->multi_cnt++;
			tr->fsession_cnt += fsession;
		}
		mutex_unlock(&tr->mutex);
		if (!err)
			multi_resched_batch(i);
	}
	if (err)
		multi_link_del(link, i - 1);
	return err;
}

/**
 * multi_link_unlist - a detach's first step: take @link off its functions
 * @link: the link being released
 *
 * The functions no longer run it once rerouted. tr->multi_cnt still
 * counts it, so that they stay multi-managed, and the ordinary path waits
 * for tramp_multi_mutex on them, until the reroute is done
 * (multi_link_unhold()). The links of a multi-managed function change
 * under tramp_multi_mutex alone.
 */
static void multi_link_unlist(struct bpf_tracing_multi_link *link)
{
	int fsession = link->attach_type == BPF_TRACE_FSESSION_MULTI;
	u32 i;

	lockdep_assert_held(&tramp_multi_mutex);
	for (i = 0; i < link->cnt; i++) {
		struct bpf_trampoline *tr = link->funcs[i].tr;

		multi_links_del(tr->multi, link);
		if (fsession)
			tr->fsession_cnt--;
		multi_resched_batch(i);
	}
}

/**
 * multi_link_unhold - a detach's last step: @link lets its functions go
 * @link: the link being released, its functions rerouted
 *
 * A function whose last multi link this was stops being multi-managed
 * unless it is stale, without tr->mutex: an ordinary holder of tr->mutex
 * that finds it so (bpf_tramp_multi_managed()'s acquire) sees everything
 * the detach wrote to it before this release, and nothing here writes to
 * it after.
 */
static void multi_link_unhold(struct bpf_tracing_multi_link *link)
{
	u32 i;

	lockdep_assert_held(&tramp_multi_mutex);
	for (i = 0; i < link->cnt; i++) {
		struct bpf_trampoline *tr = link->funcs[i].tr;

		/* pairs with bpf_tramp_multi_managed()'s acquire */
		smp_store_release(&tr->multi_cnt, tr->multi_cnt - 1);
		multi_resched_batch(i);
	}
}

/**
 * bpf_tramp_multi_link_detach - take a multi link off its functions
 * @link: the link being released
 *
 * Does not fail: without memory, the link's programs are jumped over in
 * place. Returns once no call can enter them any more; calls in flight
 * may still be on their way to them until the caller's
 * bpf_tramp_multi_wait() has returned. The link keeps its references to
 * the trampolines: the caller drops them after that wait.
 *
 * Context: process context, may sleep; no trampoline mutex held.
 */
void bpf_tramp_multi_link_detach(struct bpf_tracing_multi_link *link)
{
	struct multi_reroute r = {
		.lock_direct_mutex = true,
		.detaching = true,
		.deferring = true,
	};

	mutex_lock(&tramp_multi_mutex);
	multi_link_unlist(link);
	/* without memory, the link's programs are jumped over in place */
	if (multi_link_reroute(link, &r))
		multi_link_skip(link);
	/* and in the images put that calls in flight still return into */
	bpf_tramp_dying_skip_link(&link->link);
	multi_tidy(true);
	multi_link_unhold(link);
	mutex_unlock(&tramp_multi_mutex);
	/* the wait that follows (the release's work) is also r.abandoned's and multi_tidy()'s */
}

/**
 * bpf_tramp_multi_link_attach - add a multi link to its functions and route them
 * @link: the link, its functions resolved, each with its trampoline
 *
 * All of the link's functions or, on error, none.
 *
 * Return: 0 once the link's program runs on every function, or an errno.
 */
int bpf_tramp_multi_link_attach(struct bpf_tracing_multi_link *link)
{
	struct multi_reroute r = { .lock_direct_mutex = true };
	int err;

	mutex_lock(&tramp_multi_mutex);
	err = multi_link_add(link);
	if (!err) {
		err = multi_link_reroute(link, &r);
		if (err)
			multi_link_del(link, link->cnt);
	}
	mutex_unlock(&tramp_multi_mutex);
	/* as bpf_tramp_multi_unlock(): the program may go once this returns */
	if (r.abandoned)
		bpf_tramp_multi_wait();
	return err;
}

#ifdef CONFIG_DEBUG_FS
static void multi_tramps_show_links(struct seq_file *m, struct bpf_tracing_multi_link **links,
				    u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		seq_printf(m, "%s%u", i ? "," : "", links[i]->link.link.id);
	seq_putc(m, '\n');
}

/*
 * <debugfs>/bpf_multi_trampolines: every trampoline that runs multi links,
 * one line each, then its functions, one a line:
 *   shared <id>[ dead] args=<n> funcs=<n> size=<n> links=<link ids>
 *   own[ stale] key=<key> args=<n> progs=<ordinary programs> size=<n> links=<link ids>
 * "dead": jumps over a detached link's programs (multi_link_skip());
 * "stale": the function waits for multi_tidy().
 */
static int multi_tramps_show(struct seq_file *m, void *v)
{
	struct bpf_tracing_multi_link *links[BPF_MAX_TRAMP_LINKS];
	struct bpf_tramp_multi *multi;
	struct bpf_tramp_shared *s;
	struct bpf_trampoline *tr;

	mutex_lock(&tramp_multi_mutex);
	list_for_each_entry(s, &tramp_shared_list, list) {
		seq_printf(m, "shared %llu%s args=%u funcs=%u size=%d links=", s->id,
			   s->dead ? " dead" : "", multi_model_slots(&s->model), s->nr_funcs,
			   s->im->size);
		multi_tramps_show_links(m, s->links, s->nr_links);
		list_for_each_entry(multi, &s->funcs, shared_node)
			seq_printf(m, "\t%ps\n", multi->tr->func.addr);
	}
	list_for_each_entry(multi, &tramp_own_list, shared_node) {
		tr = multi->tr;
		seq_printf(m, "own%s key=%llu args=%u progs=%d size=%d links=",
			   list_empty(&multi->stale_node) ? "" : " stale", tr->key,
			   multi_model_slots(&tr->func.model),
			   multi_tr_ordinary_cnt(tr), tr->cur_image ? tr->cur_image->size : 0);
		multi_tramps_show_links(m, links, multi_tr_links(tr, links));
		seq_printf(m, "\t%ps\n", tr->func.addr);
	}
	mutex_unlock(&tramp_multi_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(multi_tramps);

static int __init tramp_multi_debugfs_init(void)
{
	debugfs_create_file("bpf_multi_trampolines", 0400, NULL, NULL, &multi_tramps_fops);
	if (IS_ENABLED(CONFIG_BPF_TRAMPOLINE_DEBUG))
		debugfs_create_bool("bpf_multi_tidy_hold", 0600, NULL, &tidy_hold);
	return 0;
}
late_initcall(tramp_multi_debugfs_init);
#endif
