/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * What trampoline.c, trampoline_multi.c and tracing_multi_link.c give each
 * other beside include/linux/bpf.h.
 */
#ifndef __KERNEL_BPF_TRAMPOLINE_H
#define __KERNEL_BPF_TRAMPOLINE_H

#include <linux/bpf.h>

void bpf_tramp_images_retire(struct bpf_tramp_image **ims, u32 n);
bool bpf_tramp_dying_skip_link(const struct bpf_tramp_link *link);

/*
 * What multi links keep of a function, beside its trampoline (tr->multi):
 * allocated when a multi link first resolves the function
 * (bpf_trampoline_get_multi()), with the trampoline if the link creates
 * that, and freed with the trampoline, so that an ordinary trampoline
 * carries one pointer of it. Locks: tramp_multi_mutex, and as each field
 * says.
 */
struct bpf_tramp_multi {
	struct bpf_trampoline *tr;		/* set once */
	/*
	 * Its multi links, in the order of their addresses: nr_links 1, in
	 * link; more, in links[], which multi_links_add() allocates and
	 * multi_links_del() frees. Added under tr->mutex too, taken off by a
	 * detach without it (and links[] freed): read under tramp_multi_mutex;
	 * a function that is not multi-managed has none, which
	 * bpf_tramp_multi_managed() under tr->mutex is enough to see.
	 */
	union {
		struct bpf_tracing_multi_link *link;
		struct bpf_tracing_multi_link **links;
	};
	u32 nr_links;
	/*
	 * Its ftrace location, at loc_off from tr->func.addr once loc_known:
	 * set once, with both mutexes held, loc_known by smp_store_release().
	 * Read under either mutex, or after smp_load_acquire() of loc_known.
	 */
	u8 loc_off;
	bool loc_known;
	/*
	 * The image it is on, or NULL; set by a reroute's commit: under
	 * tramp_multi_mutex, and tr->mutex too unless a link counts in
	 * tr->multi_cnt or the function is stale (bpf_tramp_multi_managed()).
	 */
	struct bpf_tramp_shared *shared;
	/* in shared->funcs, on tramp_own_list (an own image), or empty */
	struct list_head shared_node;
	/* on tramp_stale_list, the functions to tidy after a detach without
	 * memory, holding a reference to the trampoline: put on with
	 * tr->mutex held too, unless a detaching link still counts in
	 * tr->multi_cnt; taken off with tr->mutex held too
	 */
	struct list_head stale_node;
};

#ifdef CONFIG_DYNAMIC_FTRACE_WITH_DIRECT_CALLS
void bpf_tramp_multi_lock(void);
bool bpf_tramp_multi_trylock(void);
void bpf_tramp_multi_unlock(struct bpf_trampoline *tr);
void bpf_tramp_multi_mutex_unlock(void);
int bpf_tramp_multi_get_links(const struct bpf_trampoline *tr, struct bpf_tramp_links *tlinks);
int bpf_tramp_multi_update(struct bpf_trampoline *tr, bool lock_direct_mutex);
int bpf_tramp_multi_unlink(struct bpf_trampoline *tr, struct bpf_tramp_link *link);
void bpf_tramp_multi_wait(void);
int bpf_tramp_multi_share_self(struct bpf_trampoline *tr);
void bpf_tramp_ftrace_ops_init(struct ftrace_ops *ops, struct bpf_trampoline *tr);

/*
 * Is trampoline_multi.c in charge of @tr? While it has multi links (or a
 * detaching one, which counts in tr->multi_cnt), is on a shared image, or
 * waits to be tidied. It becomes so only with both mutexes held; it stops
 * with both, or with tramp_multi_mutex alone at a detach's end
 * (multi_link_unhold(), whose release the acquire here pairs with).
 */
static inline bool bpf_tramp_multi_managed(const struct bpf_trampoline *tr)
{
	/*
	 * Without tr->mutex, stale_node and multi->shared change only while
	 * an earlier term holds: under tr->mutex, a "no" is stable. Read
	 * after the acquire, they and whatever the caller reads of @tr next
	 * come after a detach's writes: a tr->mutex holder asks first.
	 */
	return smp_load_acquire(&tr->multi_cnt) ||
	       (tr->multi && (!list_empty(&tr->multi->stale_node) || tr->multi->shared));
}
#else
static inline void bpf_tramp_multi_lock(void) {}

static inline bool bpf_tramp_multi_trylock(void)
{
	return true;
}

static inline void bpf_tramp_multi_unlock(struct bpf_trampoline *tr)
{
	mutex_unlock(&tr->mutex);
}

static inline void bpf_tramp_multi_mutex_unlock(void) {}

static inline int bpf_tramp_multi_get_links(const struct bpf_trampoline *tr,
					    struct bpf_tramp_links *tlinks)
{
	return 0;
}

static inline int bpf_tramp_multi_update(struct bpf_trampoline *tr,
					 bool lock_direct_mutex)
{
	return -EOPNOTSUPP;
}

static inline int bpf_tramp_multi_unlink(struct bpf_trampoline *tr,
					 struct bpf_tramp_link *link)
{
	return -EOPNOTSUPP;
}

static inline void bpf_tramp_multi_wait(void) {}

static inline int bpf_tramp_multi_share_self(struct bpf_trampoline *tr)
{
	return -EOPNOTSUPP;
}

static inline bool bpf_tramp_multi_managed(const struct bpf_trampoline *tr)
{
	return false;
}
#endif

struct bpf_tracing_multi_link;

/* One function of a multi link: funcs[].tr->multi lists the link. */
struct bpf_tracing_multi_func {
	unsigned long addr;		/* what bpf_get_func_ip() returns */
	struct bpf_trampoline *tr;
	u32 btf_id;
	u8 loc_off;			/* its ftrace location - addr */
};

/*
 * A tracing_multi link: tracing_multi_link.c creates it and resolves its
 * functions, trampoline_multi.c routes them. Its fields are set before
 * bpf_tramp_multi_link_attach() and stay until the link is freed, except
 * funcs[].tr (put once the link is released, or by a failed attach),
 * free_trace (set by a failed attach or the release), and release_node and
 * free_refs (changed by the release, its work and the dealloc).
 */
struct bpf_tracing_multi_link {
	/* link.cookie is the link itself, where the program may read the
	 * IP: the helpers that find the function by it look it up there
	 * (multi_link_of(), multi_func_of()). Else 0: an image stores a zero
	 * cookie in fewer instructions.
	 */
	struct bpf_tramp_link link;
	enum bpf_attach_type attach_type;
	struct btf *btf;
	struct module *mod;	/* btf's module, with a reference; NULL: vmlinux */
	u32 cnt;
	struct bpf_tracing_multi_func *funcs;	/* sorted by addr */
	u64 *cookies;		/* funcs[i]'s, if the link was given any */
	/* bpf_arg_btf_slots() of funcs[i]'s prototype, if the program asks */
	u32 (*arg_btf)[MAX_BPF_FUNC_ARGS];
	/*
	 * Half arg_btf's address less funcs', so that funcs[i]'s row of
	 * arg_btf, twice as large as an entry of funcs[], is at twice
	 * (&funcs[i] + this), modulo 2^64. 0 without arg_btf (never with it:
	 * see multi_link_arg_btf()). For the verifier's inlined
	 * typed-argument calls.
	 */
	u64 arg_btf_off;
	/*
	 * freed after an RCU-tasks-trace grace period too: see
	 * multi_reroute_skip_published() in trampoline_multi.c, and the
	 * release of a sleepable program (tracing_multi_link.c)
	 */
	bool free_trace;
	/* on the list of released links whose calls in flight are waited for */
	struct llist_node release_node;
	/* holders of the link's memory: the link, and its release until done */
	refcount_t free_refs;
};

struct bpf_trampoline *bpf_trampoline_get_multi(u64 key,
						struct bpf_attach_target_info *tgt_info);
int bpf_tramp_multi_link_attach(struct bpf_tracing_multi_link *link);
void bpf_tramp_multi_link_detach(struct bpf_tracing_multi_link *link);

#endif
