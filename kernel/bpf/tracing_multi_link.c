// SPDX-License-Identifier: GPL-2.0-only
/*
 * The tracing_multi link (BPF_LINK_TYPE_TRACING_MULTI): one fentry.multi,
 * fexit.multi, fmod_ret.multi or fsession.multi program on many kernel
 * functions.
 *
 * This file holds the link as user space and the program see it:
 * - BPF_LINK_CREATE: the ids are checked as the targets of ordinary
 *   tracing programs are checked at load, resolved to addresses (those of
 *   a vmlinux link of MULTI_SYMS_BATCH or more by one walk of kallsyms,
 *   as kprobe.multi does, memory permitting; otherwise each by a search,
 *   a module's in its own symbols, unless another multi link resolved it
 *   already: then from its trampoline) and each given its struct
 *   bpf_trampoline; bpf_tramp_multi_link_attach() then routes them
 *   (trampoline_multi.c);
 * - release (a work item waits for the calls in flight, not the task
 *   closing the link), fdinfo and link info;
 * - what a program reads about the function it runs for: its cookie and
 *   its arguments' types, found by the traced IP in link->funcs, which is
 *   sorted by address.
 *
 * Nothing here takes tramp_multi_mutex itself. What the helpers and the
 * inlined calls read (funcs[].addr, cookies, arg_btf, arg_btf_off) is set
 * before the link is attached and stays until it is freed. The link is
 * freed once the release work has waited for the calls in flight
 * (multi_release_workfn()) and bpf_link_free()'s RCU grace period has
 * passed; for a sleepable program (free_trace), after an RCU-tasks-trace
 * grace period that follows both. After a failed attach, it is freed as
 * bpf_link_free() frees a link.
 */
#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/btf.h>
#include <linux/cred.h>
#include <linux/filter.h>
#include <linux/ftrace.h>
#include <linux/hashtable.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/rcupdate_trace.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/stringhash.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "trampoline.h"

/* The most functions one link takes (as kprobe.multi). */
#define BPF_TRACING_MULTI_MAX_CNT	BIT(20)

/*
 * An array of @n elements of @size for the link, zeroed, in the memory it
 * needs: kvmalloc() would take a large one in a kmalloc() rounded up to a
 * power of two, up to twice that. So, as bpf_map_area_alloc() does,
 * kmalloc() up to the costly order, vmalloc() above; no warning, as the
 * size is user space's.
 */
static void *multi_link_array_alloc(u32 n, size_t size)
{
	const gfp_t gfp = GFP_KERNEL | __GFP_ACCOUNT | __GFP_NOWARN | __GFP_ZERO;
	size_t bytes = array_size(n, size);

	if (bytes <= PAGE_SIZE << PAGE_ALLOC_COSTLY_ORDER)
		return kvmalloc(bytes, gfp);
	return __vmalloc(bytes, gfp);
}

static int multi_link_cmp_addr(const void *a, const void *b, const void *priv)
{
	const struct bpf_tracing_multi_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Sorting funcs[] by address: the cookies go with their functions. */
static void multi_link_swap(void *a, void *b, int size, const void *priv)
{
	const struct bpf_tracing_multi_link *link = priv;
	struct bpf_tracing_multi_func *x = a, *y = b;
	u64 *cookies = link->cookies;

	swap(*x, *y);
	swap(cookies[x - link->funcs], cookies[y - link->funcs]);
}

/* Drop the link's trampoline references (they take mutexes: not from the
 * RCU callback that frees the link).
 */
static void multi_link_put_trampolines(struct bpf_tracing_multi_link *link)
{
	u32 i;

	for (i = 0; i < link->cnt; i++) {
		bpf_trampoline_put(link->funcs[i].tr);
		link->funcs[i].tr = NULL;
		cond_resched();
	}
}

static void multi_link_free(struct bpf_tracing_multi_link *link)
{
	kvfree(link->funcs);
	kvfree(link->cookies);
	kvfree(link->arg_btf);
	module_put(link->mod);
	btf_put(link->btf);
	kfree(link);
}

static void multi_link_free_trace(struct rcu_head *rcu)
{
	multi_link_free(container_of(rcu, struct bpf_tracing_multi_link, link.link.rcu));
}

/* Drop a holder of the link's memory (link->free_refs): the last frees it. */
static void multi_link_put(struct bpf_tracing_multi_link *link)
{
	if (!refcount_dec_and_test(&link->free_refs))
		return;
	if (link->free_trace)
		call_rcu_tasks_trace(&link->link.link.rcu, multi_link_free_trace);
	else
		multi_link_free(link);
}

/* Released links whose calls in flight multi_release_work waits for. */
static LLIST_HEAD(multi_release_list);

/*
 * The rest of the releases queued: once calls in flight can no longer be on
 * their way to the links' programs (bpf_tramp_multi_wait(), which also
 * frees what the detaches' reroutes emptied: one wait for all the links
 * queued before it starts), drop each link's trampolines, the program
 * reference its release took, and its holder of the link's memory. A
 * sleepable program may be in the trampoline, preempted on its way into
 * its RCU-tasks-trace section, until the wait: the memory then goes after
 * a tasks-trace grace period that starts after it (free_trace).
 */
static void multi_release_workfn(struct work_struct *work)
{
	struct llist_node *list = llist_del_all(&multi_release_list);
	struct bpf_tracing_multi_link *link, *tmp;

	if (!list)
		return;
	bpf_tramp_multi_wait();
	llist_for_each_entry_safe(link, tmp, list, release_node) {
		multi_link_put_trampolines(link);
		bpf_prog_put(link->link.link.prog);
		multi_link_put(link);
	}
}

static DECLARE_WORK(multi_release_work, multi_release_workfn);

/*
 * Take the link off its functions: no call enters its program from here.
 * Calls in flight may still be on their way to it, so the program, the
 * trampolines and the link's memory (which the program reads) stay until
 * multi_release_work has waited for them: closing a link waits for no
 * grace period.
 */
static void bpf_tracing_multi_link_release(struct bpf_link *l)
{
	struct bpf_tracing_multi_link *link =
		container_of(l, struct bpf_tracing_multi_link, link.link);

	bpf_tramp_multi_link_detach(link);
	bpf_prog_inc(l->prog);
	link->free_trace = l->prog->sleepable;
	refcount_inc(&link->free_refs);
	llist_add(&link->release_node, &multi_release_list);
	queue_work(system_unbound_wq, &multi_release_work);
}

/*
 * Called by bpf_link_free() after an RCU grace period (an RCU-tasks-trace
 * one too for a sleepable program), or by a failed attach: the link's
 * memory goes once multi_release_work is done with it too, if it was
 * released.
 */
static void bpf_tracing_multi_link_dealloc(struct bpf_link *l)
{
	multi_link_put(container_of(l, struct bpf_tracing_multi_link, link.link));
}

static void bpf_tracing_multi_link_show_fdinfo(const struct bpf_link *l,
					       struct seq_file *seq)
{
	struct bpf_tracing_multi_link *link =
		container_of(l, struct bpf_tracing_multi_link, link.link);

	seq_printf(seq, "attach_type:\t%d\nfunc_cnt:\t%u\n",
		   link->attach_type, link->cnt);
}

static int multi_link_cmp_id(const void *a, const void *b, const void *priv)
{
	const struct bpf_tracing_multi_func *funcs = priv;
	u32 x = funcs[*(const u32 *)a].btf_id, y = funcs[*(const u32 *)b].btf_id;

	return x < y ? -1 : x > y;
}

/*
 * As upstream: ids in ascending order, addrs and cookies in the same order;
 * an array with count 0 is -EINVAL, a count smaller than the link's fills
 * that many and is -ENOSPC. Addresses read 0 without kallsyms_show_value().
 * The order is sorted for each call that asks for arrays: a link does not
 * keep it (attach would pay for it, on every function, while no one asks).
 */
static int bpf_tracing_multi_link_fill_link_info(const struct bpf_link *l,
						 struct bpf_link_info *info)
{
	struct bpf_tracing_multi_link *link =
		container_of(l, struct bpf_tracing_multi_link, link.link);
	u64 __user *uaddrs = u64_to_user_ptr(info->tracing_multi.addrs);
	u64 __user *ucookies = u64_to_user_ptr(info->tracing_multi.cookies);
	u32 __user *uids = u64_to_user_ptr(info->tracing_multi.ids);
	bool show_addrs = kallsyms_show_value(current_cred());
	u32 ucount = info->tracing_multi.count, i;
	u32 *by_id;
	int err = 0;

	info->tracing_multi.count = link->cnt;
	info->tracing_multi.attach_type = link->attach_type;
	info->tracing_multi.btf_obj_id = btf_obj_id(link->btf);
	if (!uaddrs && !ucookies && !uids)
		return 0;
	if (!ucount)
		return -EINVAL;
	if (ucount < link->cnt)
		err = -ENOSPC;
	else
		ucount = link->cnt;
	by_id = kvmalloc_array(link->cnt, sizeof(*by_id), GFP_KERNEL);
	if (!by_id)
		return -ENOMEM;
	for (i = 0; i < link->cnt; i++)
		by_id[i] = i;
	sort_r(by_id, link->cnt, sizeof(*by_id), multi_link_cmp_id, NULL, link->funcs);
	for (i = 0; i < ucount; i++) {
		const struct bpf_tracing_multi_func *f = &link->funcs[by_id[i]];
		u64 cookie = link->cookies ? link->cookies[by_id[i]] : 0;

		if ((uids && put_user(f->btf_id, uids + i)) ||
		    (ucookies && put_user(cookie, ucookies + i)) ||
		    (uaddrs && put_user(show_addrs ? f->addr : 0, uaddrs + i))) {
			err = -EFAULT;
			break;
		}
	}
	kvfree(by_id);
	return err;
}

static const struct bpf_link_ops bpf_tracing_multi_link_lops = {
	.release = bpf_tracing_multi_link_release,
	.dealloc_deferred = bpf_tracing_multi_link_dealloc,
	.show_fdinfo = bpf_tracing_multi_link_show_fdinfo,
	.fill_link_info = bpf_tracing_multi_link_fill_link_info,
};

/*
 * Many vmlinux functions looked up by name with one walk of the kernel
 * text's symbols (multi_syms_walk()), as ftrace_lookup_symbols() does for
 * kprobe.multi with all of kallsyms, instead of two searches of the names
 * per function (its address, and whether another function has its name):
 * each search skips up to 255 compressed names.
 */
#define MULTI_SYMS_BATCH	1024

struct multi_sym {
	const char *name;
	u64 hashlen;		/* of name, compared first: a bucket's other names stay unread */
	unsigned long addr;	/* of the first function of that name */
	unsigned long end;	/* the next symbol's address, 0 if not known */
	unsigned long loc;	/* ftrace location in [addr, end), batch walk only */
	u32 cnt;		/* functions of that name */
	u32 rank;		/* of addr among the functions found, batch walk only */
	struct hlist_node node;	/* in multi_syms.buckets */
};

struct multi_syms {
	struct multi_sym *syms;	/* unique names */
	u32 nr;
	u32 *of;		/* per id: its name's index in syms, or U32_MAX */
	/*
	 * syms by name hash: the walk hashes each symbol of kallsyms once and
	 * compares it with its bucket, not with log2(nr) names as a binary
	 * search would.
	 */
	struct hlist_head *buckets;
	u32 bits;
	u32 ranked;		/* functions found so far */
	u32 *by_rank;		/* their indexes in syms, by rank */
	struct multi_sym *open;	/* the last found, until the next symbol ends it */
};

/*
 * Hash and length, a word at a time, and no strlen() first: the walk hashes
 * every symbol; with the length, a name that matches compares by memcmp().
 */
static u64 multi_sym_hashlen(const char *name)
{
	return hashlen_string(NULL, name);
}

static struct hlist_head *multi_syms_bucket(const struct multi_syms *ms, u64 hashlen)
{
	return &ms->buckets[hash_32(hashlen_hash(hashlen), ms->bits)];
}

/* The index in ms->syms of @name, whose multi_sym_hashlen() is @hashlen, or U32_MAX. */
static u32 multi_syms_find(const struct multi_syms *ms, const char *name, u64 hashlen)
{
	struct multi_sym *sym;

	hlist_for_each_entry(sym, multi_syms_bucket(ms, hashlen), node)
		if (sym->hashlen == hashlen && !memcmp(sym->name, name, hashlen_len(hashlen)))
			return sym - ms->syms;
	return U32_MAX;
}

/* Add @name to ms->syms unless it is there; its index. */
static u32 multi_syms_add(struct multi_syms *ms, const char *name)
{
	u64 hashlen = multi_sym_hashlen(name);
	u32 i = multi_syms_find(ms, name, hashlen);

	if (i != U32_MAX)
		return i;
	ms->syms[ms->nr] = (struct multi_sym) { .name = name, .hashlen = hashlen };
	hlist_add_head(&ms->syms[ms->nr].node, multi_syms_bucket(ms, hashlen));
	return ms->nr++;
}

static void multi_sym_count(struct multi_sym *sym, unsigned long addr)
{
	if (!core_kernel_text(addr))	/* a function, not data of the same name */
		return;
	if (!sym->cnt++)
		sym->addr = addr;
}

/*
 * The walk goes by address: a function's rank in it is its place in the
 * link's functions sorted by address, and the next symbol's address ends
 * it, as kallsyms_lookup_size_offset() would say (the last of a walked
 * range has no next symbol: multi_link_ftrace_loc() asks ftrace_location()
 * then).
 */
static int multi_syms_count(void *data, const char *name, unsigned long addr)
{
	struct multi_syms *ms = data;
	struct multi_sym *sym;
	u32 i;

	if (ms->open && addr > ms->open->addr) {
		ms->open->end = addr;
		ms->open = NULL;
	}
	i = multi_syms_find(ms, name, multi_sym_hashlen(name));
	if (i == U32_MAX)
		return 0;
	sym = &ms->syms[i];
	multi_sym_count(sym, addr);
	if (sym->cnt == 1 && sym->addr == addr) {
		ms->by_rank[ms->ranked] = i;
		sym->rank = ms->ranked++;
		ms->open = sym;
	}
	return 0;
}

static int multi_sym_match(void *data, unsigned long addr)
{
	multi_sym_count(data, addr);
	return 0;
}

/* The vmlinux function @id by name, with one search of kallsyms: false if not a function. */
static bool multi_sym_one(struct multi_sym *sym, struct btf *btf, u32 id)
{
	const struct btf_type *t = btf_type_by_id(btf, id);

	if (!t || !btf_type_is_func(t))
		return false;
	*sym = (struct multi_sym) { .name = btf_name_by_offset(btf, t->name_off) };
	kallsyms_on_each_match_symbol(multi_sym_match, sym->name, sym);
	return true;
}

/* The symbols of [@start, @end): its last one found has no end (see above). */
static void multi_syms_walk_range(struct multi_syms *ms, unsigned long start, unsigned long end)
{
	kallsyms_on_each_symbol_range(multi_syms_count, ms, start, end);
	ms->open = NULL;
}

/*
 * Walk the symbols of the kernel's text, where core_kernel_text() looks: its
 * data symbols are neither expanded nor hashed. Init text counts until it
 * is freed. Ranks out of address order would only cost the sort at the end
 * of multi_link_resolve().
 */
static void multi_syms_walk(struct multi_syms *ms)
{
	multi_syms_walk_range(ms, (unsigned long)_stext, (unsigned long)_etext);
	if (system_state < SYSTEM_FREEING_INITMEM)
		multi_syms_walk_range(ms, (unsigned long)_sinittext,
				      (unsigned long)_einittext);
}

/* Functions multi_syms_locate() looks up in one RCU read-side section */
#define MULTI_LOCATE_BATCH	1024

/*
 * The ftrace location of each function found whose end is known, in the
 * order of their addresses: ftrace_location_range_cursor() takes a few
 * steps each then, where ftrace_location_range() would search the records.
 */
static void multi_syms_locate(struct multi_syms *ms)
{
	struct ftrace_loc_cursor cur = {};
	struct multi_sym *sym;
	u32 i;

	rcu_read_lock();
	for (i = 0; i < ms->ranked; i++) {
		sym = &ms->syms[ms->by_rank[i]];
		if (sym->cnt == 1 && sym->end)
			sym->loc = ftrace_location_range_cursor(&cur, sym->addr, sym->end - 1);
		if (!((i + 1) % MULTI_LOCATE_BATCH)) {
			rcu_read_unlock();
			cond_resched();
			memset(&cur, 0, sizeof(cur));
			rcu_read_lock();
		}
	}
	rcu_read_unlock();
}

static void multi_syms_free(struct multi_syms *ms)
{
	kvfree(ms->syms);
	kvfree(ms->of);
	kvfree(ms->by_rank);
	kvfree(ms->buckets);
}

/*
 * The vmlinux functions of @ids by name, if there are enough of them for
 * one walk of kallsyms to cost less than searching each; ms->syms NULL
 * otherwise, or without memory for it (each is searched then). Ids that
 * are not functions are left to the checks.
 */
static void multi_syms_lookup(struct multi_syms *ms, struct btf *btf, const u32 *ids, u32 cnt)
{
	const struct btf_type *t;
	u32 i, heads;

	memset(ms, 0, sizeof(*ms));
	if (btf_is_module(btf) || cnt < MULTI_SYMS_BATCH)
		return;
	heads = roundup_pow_of_two(cnt);
	ms->syms = kvmalloc_array(cnt, sizeof(*ms->syms), GFP_KERNEL | __GFP_ACCOUNT);
	ms->of = kvmalloc_array(cnt, sizeof(*ms->of), GFP_KERNEL | __GFP_ACCOUNT);
	ms->by_rank = kvmalloc_array(cnt, sizeof(*ms->by_rank), GFP_KERNEL | __GFP_ACCOUNT);
	ms->buckets = kvmalloc_array(heads, sizeof(*ms->buckets), GFP_KERNEL | __GFP_ACCOUNT);
	if (!ms->syms || !ms->of || !ms->by_rank || !ms->buckets) {
		multi_syms_free(ms);
		memset(ms, 0, sizeof(*ms));
		return;
	}
	ms->bits = ilog2(heads);
	__hash_init(ms->buckets, heads);
	for (i = 0; i < cnt; i++) {
		ms->of[i] = U32_MAX;
		t = btf_type_by_id(btf, ids[i]);
		if (t && btf_type_is_func(t))
			ms->of[i] = multi_syms_add(ms, btf_name_by_offset(btf, t->name_off));
	}
	multi_syms_walk(ms);
	multi_syms_locate(ms);
}

/*
 * The trampoline of a function that a multi link resolved before, with a
 * reference, and its ftrace location into @loc; else NULL. Its address and
 * ftrace location stay known in it (tr->multi->loc_off is set once), and
 * the same id of the same BTF is the same function: no need to find them
 * again (a vmlinux function's by name in kallsyms).
 */
static struct bpf_trampoline *multi_tr_known(u64 key, unsigned long *loc)
{
	struct bpf_trampoline *tr = bpf_trampoline_find(key);
	struct bpf_tramp_multi *multi;

	/* acquire: pairs with the release in bpf_tramp_multi_init() */
	multi = tr ? smp_load_acquire(&tr->multi) : NULL;
	/* acquire: then loc_off and func.addr, set before (multi_link_add()) */
	if (multi && smp_load_acquire(&multi->loc_known)) {
		*loc = (unsigned long)tr->func.addr + multi->loc_off;
		return tr;
	}
	bpf_trampoline_put(tr);
	return NULL;
}

/*
 * The ftrace location of the function a search of kallsyms found at
 * @addr (@sym NULL: a module's), or 0 if it has none a trampoline can take.
 */
static unsigned long multi_link_ftrace_loc(struct bpf_tracing_multi_link *link,
					   const struct multi_sym *sym, unsigned long addr)
{
	unsigned long loc;

	/* which of the functions of that name would be traced? */
	if (!link->mod && (!sym || sym->cnt != 1))
		return 0;
	/* ftrace_location(), without searching kallsyms again */
	if (sym && sym->end)
		loc = sym->loc;
	else
		loc = ftrace_location(addr);
	/* multi_tr_ret_off() (trampoline_multi.c) must fit in a u8 */
	if (!loc || loc - addr > U8_MAX - MCOUNT_INSN_SIZE)
		return 0;
	return loc;
}

/*
 * Resolve and check @id, the @i-th of the ids given, take its function's
 * trampoline, into its place in link->funcs: its rank in the walk of
 * kallsyms (@ms), else @i.
 */
static int multi_link_resolve_one(struct bpf_tracing_multi_link *link, struct bpf_prog *prog,
				  const struct multi_syms *ms, u32 i, u32 id, u64 cookie)
{
	u64 key = bpf_trampoline_compute_key(NULL, link->btf, id);
	struct bpf_tracing_multi_func *f = &link->funcs[i];
	struct bpf_attach_target_info tgt_info = {};
	struct multi_sym *sym = NULL, one;
	struct bpf_trampoline *tr = NULL;
	unsigned long loc = 0;
	int err;

	/* the walk placed it already: it goes by rank */
	if (!ms->syms)
		tr = multi_tr_known(key, &loc);
	if (tr)
		tgt_info.tgt_addr = (unsigned long)tr->func.addr;
	else if (ms->syms && ms->of[i] != U32_MAX)
		sym = &ms->syms[ms->of[i]];
	else if (!ms->syms && !link->mod && multi_sym_one(&one, link->btf, id))
		sym = &one;
	/* the function of that name, not data of the same name */
	if (sym && sym->cnt == 1)
		tgt_info.tgt_addr = sym->addr;
	err = bpf_check_multi_attach_target(NULL, prog, link->btf, id, &tgt_info);
	if (err) {
		bpf_trampoline_put(tr);
		return err;
	}
	module_put(tgt_info.tgt_mod);	/* the link holds link->mod */
	if (!tr) {
		loc = multi_link_ftrace_loc(link, sym, tgt_info.tgt_addr);
		if (!loc)
			return -EINVAL;
	}
	if (ms->syms) {
		/* its place by address; taken: the id came twice */
		f = &link->funcs[sym->rank];
		if (f->tr)
			return -EINVAL;
	}
	f->addr = tgt_info.tgt_addr;
	f->loc_off = loc - f->addr;
	f->btf_id = id;
	if (link->cookies)
		link->cookies[f - link->funcs] = cookie;
	f->tr = tr ?: bpf_trampoline_get_multi(key, &tgt_info);
	if (!f->tr)
		return -ENOMEM;
	/* a trampoline an ordinary program took for data of that name */
	if (f->tr->func.addr != (void *)f->addr)
		return -EINVAL;
	return 0;
}

/*
 * Resolve and check ids[], take each function's trampoline, into
 * link->funcs sorted by address. Found by one walk of kallsyms, a function
 * goes straight to its place (its rank in the walk), else the functions are
 * sorted at the end. A function another multi link has is found in its
 * trampoline. An id given twice, or two ids of one address: -EINVAL.
 */
static int multi_link_resolve(struct bpf_tracing_multi_link *link, struct bpf_prog *prog,
			      u32 *ids, u64 *cookies)
{
	bool sorted = true;
	struct multi_syms ms;
	u32 i;
	int err = 0;

	multi_syms_lookup(&ms, link->btf, ids, link->cnt);
	for (i = 0; i < link->cnt && !err; i++) {
		err = multi_link_resolve_one(link, prog, &ms, i, ids[i], cookies ? cookies[i] : 0);
		cond_resched();
	}
	multi_syms_free(&ms);
	if (err)
		return err;
	for (i = 1; i < link->cnt && sorted; i++)
		sorted = link->funcs[i].addr >= link->funcs[i - 1].addr;
	if (!sorted)
		sort_r(link->funcs, link->cnt, sizeof(*link->funcs), multi_link_cmp_addr,
		       link->cookies ? multi_link_swap : NULL, link);
	for (i = 1; i < link->cnt; i++)
		if (link->funcs[i].addr == link->funcs[i - 1].addr)
			return -EINVAL;
	return 0;
}

/*
 * The argument types of each function, for the typed-argument kfuncs
 * (bpf_arg_btf() and co.) of a program that calls them. The program's type
 * ids are of its attach BTF
 * (vmlinux if none): a module's own types count only if the link's
 * functions are that module's.
 */
static int multi_link_arg_btf(struct bpf_tracing_multi_link *link, const struct bpf_prog *prog)
{
	bool split_ids = link->btf == prog->aux->attach_btf;
	const struct btf_type *t;
	u32 (*rows)[MAX_BPF_FUNC_ARGS];
	u32 i;

	if (!prog->aux->uses_arg_btf)
		return 0;
	link->arg_btf = multi_link_array_alloc(link->cnt, sizeof(*link->arg_btf));
	if (!link->arg_btf)
		return -ENOMEM;
	for (i = 0; i < link->cnt; i++) {
		t = btf_type_by_id(link->btf, link->funcs[i].btf_id);
		t = btf_type_by_id(link->btf, t->type);
		bpf_arg_btf_slots(link->btf, t, split_ids, link->arg_btf[i]);
		cond_resched();
	}
	/* a row is twice as large as an entry of funcs[] */
	BUILD_BUG_ON(sizeof(*link->arg_btf) != 2 * sizeof(*link->funcs));
	link->arg_btf_off = ((unsigned long)link->arg_btf >> 1) - (unsigned long)link->funcs;
	if (link->arg_btf_off)
		return 0;
	/*
	 * 0 says "no rows". Addresses with their top bit set never give it,
	 * tagged ones (KASAN_SW_TAGS) may: the rows move, away from where
	 * they were.
	 */
	rows = multi_link_array_alloc(link->cnt, sizeof(*rows));
	if (!rows)
		return -ENOMEM;
	memcpy(rows, link->arg_btf, array_size(link->cnt, sizeof(*rows)));
	kvfree(link->arg_btf);
	link->arg_btf = rows;
	link->arg_btf_off = ((unsigned long)rows >> 1) - (unsigned long)link->funcs;
	return 0;
}

/* link_create.tracing_multi as this kernel takes it. */
static int multi_link_check_attr(const union bpf_attr *attr)
{
	u32 cnt = attr->link_create.tracing_multi.cnt;

	if (!bpf_jit_supports_shared_trampoline())
		return -EOPNOTSUPP;
	if (attr->link_create.flags || !cnt || !attr->link_create.tracing_multi.ids)
		return -EINVAL;
	/* the tail padding after cnt, for a field to come */
	if (memchr_inv(&attr->link_create.tracing_multi.cnt + 1, 0,
		       sizeof(attr->link_create.tracing_multi) -
		       offsetofend(typeof(attr->link_create.tracing_multi), cnt)))
		return -EINVAL;
	if (cnt > BPF_TRACING_MULTI_MAX_CNT)
		return -E2BIG;
	return 0;
}

/* The BTF of the ids, with a reference. */
static struct btf *multi_link_btf(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct btf *btf;

	if (attr->link_create.target_fd) {
		btf = btf_get_by_fd(attr->link_create.target_fd);
		if (IS_ERR(btf))
			return btf;
		if (!btf_is_kernel(btf)) {
			btf_put(btf);
			return ERR_PTR(-EINVAL);
		}
	} else if (prog->aux->attach_btf) {
		/* as upstream: the BTF the program was loaded for */
		btf = prog->aux->attach_btf;
		btf_get(btf);
	} else {
		btf = bpf_get_btf_vmlinux();
		if (IS_ERR_OR_NULL(btf))
			return btf ?: ERR_PTR(-EINVAL);
		btf_get(btf);
	}
	return btf;
}

/*
 * The link of @prog for the ids of @attr, its functions not resolved yet,
 * and the ids and cookies copied in (@ids, @cookies: the caller frees
 * them). On error, nothing is left to free.
 */
static struct bpf_tracing_multi_link *
multi_link_create(const union bpf_attr *attr, struct bpf_prog *prog, u32 **ids, u64 **cookies)
{
	u32 cnt = attr->link_create.tracing_multi.cnt;
	void __user *uids = u64_to_user_ptr(attr->link_create.tracing_multi.ids);
	void __user *ucookies = u64_to_user_ptr(attr->link_create.tracing_multi.cookies);
	struct bpf_tracing_multi_link *link;
	struct btf *btf;
	int err = -ENOMEM;

	btf = multi_link_btf(attr, prog);
	if (IS_ERR(btf))
		return ERR_CAST(btf);
	link = kzalloc(sizeof(*link), GFP_KERNEL | __GFP_ACCOUNT);
	*ids = kvmalloc_array(cnt, sizeof(**ids), GFP_KERNEL | __GFP_ACCOUNT);
	*cookies = NULL;
	if (ucookies)
		*cookies = kvmalloc_array(cnt, sizeof(**cookies), GFP_KERNEL | __GFP_ACCOUNT);
	if (!link || !*ids || (ucookies && !*cookies))
		goto out_free;
	link->funcs = multi_link_array_alloc(cnt, sizeof(*link->funcs));
	if (ucookies)
		link->cookies = multi_link_array_alloc(cnt, sizeof(*link->cookies));
	if (!link->funcs || (ucookies && !link->cookies))
		goto out_free;
	link->btf = btf;
	link->attach_type = prog->expected_attach_type;
	link->cnt = cnt;
	err = -EFAULT;
	if (copy_from_user(*ids, uids, cnt * sizeof(**ids)) ||
	    (*cookies && copy_from_user(*cookies, ucookies, cnt * sizeof(**cookies))))
		goto out_free;
	if (btf_is_module(btf)) {
		link->mod = btf_try_get_module(btf);
		err = -ENOENT;
		if (!link->mod)
			goto out_free;
	}
	bpf_link_init(&link->link.link, BPF_LINK_TYPE_TRACING_MULTI,
		      &bpf_tracing_multi_link_lops, prog);
	refcount_set(&link->free_refs, 1);
	if (bpf_prog_may_read_func_ip(prog))
		link->link.cookie = (u64)(unsigned long)link;
	return link;

out_free:
	if (link) {
		kvfree(link->funcs);
		kvfree(link->cookies);
	}
	kfree(link);
	kvfree(*ids);
	kvfree(*cookies);
	btf_put(btf);
	return ERR_PTR(err);
}

/**
 * bpf_tracing_multi_link_attach - BPF_LINK_CREATE for the multi tracing programs
 * @attr: link_create.tracing_multi: ids, cookies, cnt; target_fd: BTF object
 *        fd of the ids, or 0 for the program's attach BTF (vmlinux unless
 *        the program was loaded with a module's BTF as attach_btf_obj_fd)
 * @prog: the program, expected_attach_type one of the *_MULTI types
 *
 * Return: a link fd, or -EINVAL (bad attr, an id not a traceable function,
 * a duplicate, a vmlinux id with a module's BTF), -EOPNOTSUPP (no shared
 * trampolines, or a function with more argument slots than the arch's
 * trampoline takes), -E2BIG (cnt too large, a function with too many links),
 * -EBUSY (a function with an extension program, or one whose direct call
 * another ftrace user holds), -ENOENT, -ENOMEM, -EFAULT.
 */
int bpf_tracing_multi_link_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	struct bpf_tracing_multi_link *link;
	struct bpf_link_primer primer = {};
	u64 *cookies;
	u32 *ids;
	int err;

	err = multi_link_check_attr(attr);
	if (err)
		return err;
	link = multi_link_create(attr, prog, &ids, &cookies);
	if (IS_ERR(link))
		return PTR_ERR(link);
	err = multi_link_resolve(link, prog, ids, cookies);
	if (err)
		goto out_put;
	err = multi_link_arg_btf(link, prog);
	if (err)
		goto out_put;
	err = bpf_link_prime(&link->link.link, &primer);
	if (err)
		goto out_put;
	err = bpf_tramp_multi_link_attach(link);
	if (err)
		goto out_put;
	kvfree(ids);
	kvfree(cookies);
	return bpf_link_settle(&primer);

out_put:
	multi_link_put_trampolines(link);
	if (primer.file) {
		/* without its program, bpf_link_free() waits for RCU alone */
		link->free_trace = prog->sleepable;
		bpf_link_cleanup(&primer);	/* frees the link */
	} else {
		bpf_tracing_multi_link_dealloc(&link->link.link);
	}
	kvfree(ids);
	kvfree(cookies);
	return err;
}

/* The link of the running multi program: the cookie its trampoline passed. */
static __always_inline struct bpf_tracing_multi_link *multi_link_of(void)
{
	struct bpf_trace_run_ctx *run_ctx =
		container_of(current->bpf_ctx, struct bpf_trace_run_ctx, run_ctx);

	return (void *)(unsigned long)run_ctx->bpf_cookie;
}

/*
 * The index in @link of the function a multi program runs for, or -1: by
 * the IP its trampoline stored at ctx[-2]. A binary search of its own, as
 * bsearch()'s comparison is an indirect call per step. Each step halves
 * funcs[i..i+n), keeping the last function at or below the IP, and does
 * not branch on the comparison; one test of that function ends it.
 * funcs[0] exists: a link has one function at least (see
 * multi_link_check_attr()).
 */
static __always_inline long multi_func_of(const struct bpf_tracing_multi_link *link, void *ctx)
{
	const struct bpf_tracing_multi_func *funcs = link->funcs;
	unsigned long ip = ((u64 *)ctx)[-2];
	u32 i = 0, n = link->cnt, half;

	while (n > 1) {
		half = n / 2;
		if (funcs[i + half].addr <= ip)
			i += half;
		n -= half;
	}
	return funcs[i].addr == ip ? (long)i : -1;
}

/* bpf_get_attach_cookie() of a multi program: the function's cookie. */
BPF_CALL_1(bpf_get_attach_cookie_tracing_multi, void *, ctx)
{
	const struct bpf_tracing_multi_link *link = multi_link_of();
	long i;

	if (!link->cookies)
		return 0;
	i = multi_func_of(link, ctx);
	return i >= 0 ? link->cookies[i] : 0;
}

/*
 * The argument types (bpf_arg_btf_slots()) of the function a multi program
 * runs for, or NULL if it is not found or its link keeps none. A program
 * that calls the typed-argument kfuncs has a link that keeps them: its own,
 * or the link of a program that tail calls it (see
 * bpf_prog_map_ctx_compatible()).
 */
static __always_inline const u32 *multi_arg_types(void *ctx)
{
	const struct bpf_tracing_multi_link *link = multi_link_of();
	long i;

	if (!link->arg_btf)
		return NULL;
	i = multi_func_of(link, ctx);
	return i >= 0 ? link->arg_btf[i] : NULL;
}

/*
 * The first argument slot that @types gives @btf_id, or -ENOENT (@types
 * NULL too). The slots past the function's own are 0 in them
 * (bpf_arg_btf_slots() counts slots as the trampolines save them), and
 * @btf_id is that of a struct or union (the verifier checked): the search
 * needs no slot count, and a slot it finds is one the trampoline saved.
 * Where the JIT says where the run context is, the verifier inlines the
 * same search (multi_arg_first_insns()) and this runs only for the others.
 */
static int multi_arg_first(const u32 *types, u32 btf_id)
{
	int i;

	if (!types)
		return -ENOENT;
	for (i = 0; i < MAX_BPF_FUNC_ARGS; i++)
		if (types[i] == btf_id)
			return i;
	return -ENOENT;
}

/*
 * The bodies of the typed-argument kfuncs, which tracing_args.c registers.
 * The verifier answers an ordinary program's calls from its one target's
 * prototype, so these run only for multi programs: the function's table of
 * argument types is found by the traced IP, as bpf_get_attach_cookie()
 * finds a cookie, once per call. Where the JIT says where the run context
 * is, the verifier inlines them (bpf_tracing_multi_arg_inline()); then
 * only bpf_arg_btf() at a slot that varies comes here.
 */
__bpf_kfunc_start_defs();

/**
 * bpf_arg_btf() - an argument of the traced function, by its type
 * @ctx: the program's context, as passed to it
 * @n: argument slot, from 0, as for bpf_arg(); the verifier refuses one
 *     that is always MAX_BPF_FUNC_ARGS or more
 * @btf_id__k: BTF id of a struct or union, in the program's attach BTF
 *
 * The verifier types the result as a pointer to that type, which may be
 * NULL.
 *
 * Return: argument @n if the traced function declares it as a pointer to
 * type @btf_id__k, else NULL.
 */
__bpf_kfunc void *bpf_arg_btf(void *ctx, u32 n, u32 btf_id__k)
{
	const u32 *types;

	if (n >= MAX_BPF_FUNC_ARGS)
		return NULL;
	types = multi_arg_types(ctx);
	if (!types || types[n] != btf_id__k)
		return NULL;
	return (void *)(unsigned long)((u64 *)ctx)[n];
}

/**
 * bpf_arg_find() - the first argument of the traced function of a type
 * @ctx: the program's context, as passed to it
 * @btf_id__k: BTF id of a struct or union, in the program's attach BTF
 *
 * Return: the first argument slot that the traced function declares as a
 * pointer to type @btf_id__k, or -ENOENT.
 */
__bpf_kfunc int bpf_arg_find(void *ctx, u32 btf_id__k)
{
	return multi_arg_first(multi_arg_types(ctx), btf_id__k);
}

/**
 * bpf_arg_first_btf() - the first argument of the traced function of a type
 * @ctx: the program's context, as passed to it
 * @btf_id__k: BTF id of a struct or union, in the program's attach BTF
 *
 * bpf_arg_find() and bpf_arg_btf() in one: one search for the function.
 * The verifier types the result as for bpf_arg_btf().
 *
 * Return: the first argument that the traced function declares as a
 * pointer to type @btf_id__k, or NULL.
 */
__bpf_kfunc void *bpf_arg_first_btf(void *ctx, u32 btf_id__k)
{
	int n = multi_arg_first(multi_arg_types(ctx), btf_id__k);

	return n < 0 ? NULL : (void *)(unsigned long)((u64 *)ctx)[n];
}

__bpf_kfunc_end_defs();

/* A jump of bpf_tracing_multi_arg_inline() from @from to @to. */
static void multi_arg_jump(struct bpf_insn *from, const struct bpf_insn *to)
{
	from->off = to - (from + 1);
}

/*
 * The most instructions bpf_tracing_multi_arg_inline() writes, those of
 * bpf_arg_first_btf(): multi_arg_row_insns()'s, a step of 3 per slot, 4 more
 */
#define MULTI_ARG_ROW_INSNS	21
#define MULTI_ARG_INSNS_MAX	(MULTI_ARG_ROW_INSNS + 3 * MAX_BPF_FUNC_ARGS + 4)

/*
 * multi_arg_types() as instructions into @insn, ctx in r1: r4 = the row of
 * link->arg_btf of the function; r0, r2, r3 and r5 clobbered. The link is
 * the cookie in the run context, at @cookie_off from ctx. @miss[0] and
 * @miss[1] are the jumps taken when there is no row (function not found,
 * link without types), for the caller to aim. Return: past the last
 * instruction.
 */
static struct bpf_insn *multi_arg_row_insns(struct bpf_insn *insn, int cookie_off,
					    struct bpf_insn **miss)
{
	const int fsize = sizeof(struct bpf_tracing_multi_func);
	struct bpf_insn *skip, *loop;

	/* r0 = the link, r4 = its funcs, r5 = how many, r2 = the IP */
	*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, cookie_off);
	*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_4, BPF_REG_0,
			      offsetof(struct bpf_tracing_multi_link, funcs));
	*insn++ = BPF_LDX_MEM(BPF_W, BPF_REG_5, BPF_REG_0,
			      offsetof(struct bpf_tracing_multi_link, cnt));
	*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_2, BPF_REG_1, -16);
	/*
	 * multi_func_of(): r4 = the last function at or below the IP; r5 is
	 * tested before the loop and at its bottom, so that a step takes one
	 * jump back
	 */
	skip = insn++;
	loop = insn;
	*insn++ = BPF_MOV64_REG(BPF_REG_0, BPF_REG_5);
	*insn++ = BPF_ALU64_IMM(BPF_RSH, BPF_REG_0, 1);
	*insn++ = BPF_ALU64_REG(BPF_SUB, BPF_REG_5, BPF_REG_0);
	*insn++ = BPF_ALU64_IMM(BPF_MUL, BPF_REG_0, fsize);
	*insn++ = BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_4);
	*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_0,
			      offsetof(struct bpf_tracing_multi_func, addr));
	*insn++ = BPF_JMP_REG(BPF_JGT, BPF_REG_3, BPF_REG_2, 1);
	*insn++ = BPF_MOV64_REG(BPF_REG_4, BPF_REG_0);
	*insn = BPF_JMP_IMM(BPF_JGT, BPF_REG_5, 1, 0);
	multi_arg_jump(insn++, loop);
	*skip = BPF_JMP_IMM(BPF_JLE, BPF_REG_5, 1, 0);
	multi_arg_jump(skip, insn);
	*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_4,
			      offsetof(struct bpf_tracing_multi_func, addr));
	miss[0] = insn;
	*insn++ = BPF_JMP_REG(BPF_JNE, BPF_REG_3, BPF_REG_2, 0);
	/* r4 = its row, at twice (it + link->arg_btf_off) */
	*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, cookie_off);
	*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_3, BPF_REG_0,
			      offsetof(struct bpf_tracing_multi_link, arg_btf_off));
	miss[1] = insn;
	*insn++ = BPF_JMP_IMM(BPF_JEQ, BPF_REG_3, 0, 0);
	*insn++ = BPF_ALU64_REG(BPF_ADD, BPF_REG_4, BPF_REG_3);
	*insn++ = BPF_ALU64_IMM(BPF_LSH, BPF_REG_4, 1);
	return insn;
}

/*
 * multi_arg_first() as instructions into @insn, the row in r4: r0 = the
 * slot (@load false; -ENOENT if none) or the argument there (@load; 0 if
 * none). A step per slot, unrolled, sets r0 to the slot or its offset
 * in ctx, then compares; the row is 0 past the function's own slots, and
 * @btf_id is not 0. The jumps in @miss go to where there is none.
 * Return: past the last instruction.
 */
static struct bpf_insn *multi_arg_first_insns(struct bpf_insn *insn, bool load, u32 btf_id,
					      struct bpf_insn **miss)
{
	struct bpf_insn *hit[MAX_BPF_FUNC_ARGS];
	int i;

	for (i = 0; i < MAX_BPF_FUNC_ARGS; i++) {
		*insn++ = BPF_MOV64_IMM(BPF_REG_0, load ? i * sizeof(u64) : i);
		*insn++ = BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_4, i * sizeof(u32));
		hit[i] = insn;
		*insn++ = BPF_JMP32_IMM(BPF_JEQ, BPF_REG_3, btf_id, 0);
	}
	multi_arg_jump(miss[0], insn);
	multi_arg_jump(miss[1], insn);
	*insn++ = BPF_MOV64_IMM(BPF_REG_0, load ? 0 : -ENOENT);
	if (load) {
		*insn++ = BPF_JMP_A(2);
		for (i = 0; i < MAX_BPF_FUNC_ARGS; i++)
			multi_arg_jump(hit[i], insn);
		*insn++ = BPF_ALU64_REG(BPF_ADD, BPF_REG_0, BPF_REG_1);
		*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_0, 0);
	} else {
		for (i = 0; i < MAX_BPF_FUNC_ARGS; i++)
			multi_arg_jump(hit[i], insn);
	}
	return insn;
}

/**
 * bpf_tracing_multi_arg_inline - a multi program's typed-argument call inline
 * @insn_buf: where the instructions go, room for INSN_BUF_SIZE
 * @slot: bpf_arg_btf()'s slot, a constant below MAX_BPF_FUNC_ARGS; -1 for
 *	bpf_arg_find() and bpf_arg_first_btf()
 * @load: the argument (bpf_arg_btf(), bpf_arg_first_btf()), not its slot
 * @btf_id: the call's type id
 *
 * The instructions give what the kfunc would, ctx in r1, into r0, and
 * clobber r1 to r5 as a call may (26 to 61 of them). They read the link
 * where the kfunc does, in the trampoline's run context, which a JIT keeps
 * at bpf_jit_tramp_run_ctx_off() from ctx in a trampoline that stores the
 * IP: a multi program's does, as the kfuncs make it read the IP (see
 * bpf_prog_may_read_func_ip()), and its tail callees run in the caller's.
 *
 * Return: how many instructions, or 0 if the call stays: the JIT does not
 * say where the run context is.
 */
int bpf_tracing_multi_arg_inline(struct bpf_insn *insn_buf, int slot, bool load, u32 btf_id)
{
	int off = bpf_jit_tramp_run_ctx_off();
	struct bpf_insn *insn, *miss[3];

	BUILD_BUG_ON(MULTI_ARG_INSNS_MAX >= INSN_BUF_SIZE);
	if (!off)
		return 0;
	off += offsetof(struct bpf_tramp_run_ctx, bpf_cookie);
	insn = multi_arg_row_insns(insn_buf, off, miss);
	if (slot < 0) {
		insn = multi_arg_first_insns(insn, load, btf_id, miss);
	} else {
		/* bpf_arg_btf(): r0 = row[slot] == btf_id ? ctx[slot] : 0 */
		*insn++ = BPF_LDX_MEM(BPF_W, BPF_REG_3, BPF_REG_4, slot * sizeof(u32));
		miss[2] = insn;
		*insn++ = BPF_JMP32_IMM(BPF_JNE, BPF_REG_3, btf_id, 0);
		*insn++ = BPF_LDX_MEM(BPF_DW, BPF_REG_0, BPF_REG_1, slot * sizeof(u64));
		*insn++ = BPF_JMP_A(1);
		multi_arg_jump(miss[0], insn);
		multi_arg_jump(miss[1], insn);
		multi_arg_jump(miss[2], insn);
		*insn++ = BPF_MOV64_IMM(BPF_REG_0, 0);
	}
	/* the count above is wrong: the call stays */
	if (WARN_ON_ONCE(insn - insn_buf > MULTI_ARG_INSNS_MAX))
		return 0;
	return insn - insn_buf;
}

const struct bpf_func_proto bpf_get_attach_cookie_proto_tracing_multi = {
	.func		= bpf_get_attach_cookie_tracing_multi,
	.gpl_only	= false,
	.ret_type	= RET_INTEGER,
	.arg1_type	= ARG_PTR_TO_CTX,
};
