// SPDX-License-Identifier: GPL-2.0-only
/*
 * fentry.multi, fexit.multi and fmod_ret.multi: one program attached to many
 * kernel functions by one link, through trampolines shared per arity class.
 *
 * Objects:
 * - struct bpf_tracing_multi_link: the link; funcs[] holds its functions
 *   sorted by address, each with its cookie and its struct bpf_trampoline
 *   (the per-function object ordinary fentry/fexit use too).
 * - struct bpf_tramp_shared: one trampoline image serving every function
 *   that has the same argument count, the same patched-call offset and the
 *   same set of multi links, and no ordinary program. Its ftrace_ops holds
 *   exactly those functions; when the set changes, a new ops replaces the
 *   old one (ftrace_direct_replace()), so no function misses a call.
 *
 * Every link operation (attach or detach) recomputes where each of the
 * link's functions goes, creates the images that do not exist yet, and
 * switches all functions in one ftrace_direct_replace() call. Either all of
 * it happens or, on error, none.
 *
 * Locking: tramp_multi_mutex serializes link operations and guards every
 * bpf_tramp_shared and the multi fields of struct bpf_trampoline; tr->mutex
 * is taken around changes of a trampoline's multi fields, so that ordinary
 * attach (which takes only tr->mutex) sees them consistently. Order:
 * tramp_multi_mutex -> tr->mutex -> direct_mutex -> ftrace_lock.
 */
#include <linux/bpf.h>
#include <linux/bpf_verifier.h>
#include <linux/btf.h>
#include <linux/bsearch.h>
#include <linux/debugfs.h>
#include <linux/filter.h>
#include <linux/ftrace.h>
#include <linux/kallsyms.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/sort.h>

/* The most functions one link takes (as kprobe.multi). */
#define BPF_TRACING_MULTI_MAX_CNT	BIT(20)

struct bpf_tracing_multi_link;

/* One function of a multi link. */
struct bpf_tracing_multi_func {
	unsigned long addr;		/* what bpf_get_func_ip() returns */
	u64 cookie;
	u32 btf_id;
	struct bpf_trampoline *tr;
	struct hlist_node tr_node;	/* in tr->multi_links */
	struct bpf_tracing_multi_link *link;
};

struct bpf_tracing_multi_link {
	/* link.cookie is the link itself: the cookie helper looks up the
	 * function's cookie from there.
	 */
	struct bpf_tramp_link link;
	enum bpf_attach_type attach_type;
	struct btf *btf;
	struct module *mod;
	u32 cnt;
	struct bpf_tracing_multi_func *funcs;
};

struct bpf_tramp_shared {
	struct list_head list;		/* in tramp_shared_list */
	u8 nr_args;
	u8 ret_off;			/* function start to return address */
	u32 nr_links;
	struct bpf_tracing_multi_link **links;	/* sorted */
	struct bpf_tramp_image *im;
	struct ftrace_ops *ops;		/* its functions, NULL while none */
	struct ftrace_ops *new_ops;	/* while planning */
	struct list_head funcs;		/* trampolines routed here */
	u32 nr_funcs;
	int delta;			/* while planning: functions joining - leaving */
	bool touched;			/* while planning */
	bool fresh;			/* created by the change being planned */
	u64 id;
};

static DEFINE_MUTEX(tramp_multi_mutex);
static LIST_HEAD(tramp_shared_list);
static u64 tramp_shared_id;

static enum bpf_tramp_prog_type multi_kind(enum bpf_attach_type type)
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

/* Distance from a function's start to the return address of its patched call. */
static u8 tr_ret_off(struct bpf_trampoline *tr)
{
	unsigned long addr = (unsigned long)tr->func.addr;

	return ftrace_location(addr) + MCOUNT_INSN_SIZE - addr;
}

static int cmp_ptr(const void *a, const void *b)
{
	unsigned long x = *(unsigned long *)a, y = *(unsigned long *)b;

	return x < y ? -1 : x > y;
}

static int cmp_func_addr(const void *a, const void *b)
{
	const struct bpf_tracing_multi_func *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static int cmp_addr_func(const void *key, const void *elt)
{
	unsigned long addr = *(unsigned long *)key;
	const struct bpf_tracing_multi_func *f = elt;

	return addr < f->addr ? -1 : addr > f->addr;
}

/* The multi links of @tr, sorted, into @links (BPF_MAX_TRAMP_LINKS long). */
static u32 tr_links(struct bpf_trampoline *tr, struct bpf_tracing_multi_link **links)
{
	struct bpf_tracing_multi_func *f;
	u32 n = 0;

	hlist_for_each_entry(f, &tr->multi_links, tr_node)
		links[n++] = f->link;
	sort(links, n, sizeof(*links), cmp_ptr, NULL);
	return n;
}

/* Whether one of @links needs the original function called (fexit, fmod_ret). */
static bool links_call_orig(struct bpf_tracing_multi_link **links, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (multi_kind(links[i]->attach_type) != BPF_TRAMP_FENTRY)
			return true;
	return false;
}

static struct bpf_tramp_shared *
shared_find(u8 nr_args, u8 ret_off, struct bpf_tracing_multi_link **links, u32 n)
{
	struct bpf_tramp_shared *s;

	list_for_each_entry(s, &tramp_shared_list, list) {
		if (s->nr_args == nr_args && s->ret_off == ret_off &&
		    s->nr_links == n && !memcmp(s->links, links, n * sizeof(*links)))
			return s;
	}
	return NULL;
}

/* JIT a trampoline for @nr_args-argument functions running @links. */
static struct bpf_tramp_shared *
shared_create(u8 nr_args, u8 ret_off, struct bpf_tracing_multi_link **links, u32 n)
{
	struct btf_func_model m = { .ret_size = 8, .nr_args = nr_args };
	u32 flags = BPF_TRAMP_F_SHARED | BPF_TRAMP_F_IP_ARG;
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
	s->nr_args = nr_args;
	s->ret_off = ret_off;
	s->nr_links = n;
	INIT_LIST_HEAD(&s->funcs);

	for (i = 0; i < nr_args; i++)
		m.arg_size[i] = 8;
	for (i = 0; i < n; i++) {
		struct bpf_tramp_links *tl = &tlinks[multi_kind(links[i]->attach_type)];

		tl->links[tl->nr_links++] = &links[i]->link;
	}
	if (tlinks[BPF_TRAMP_FEXIT].nr_links || tlinks[BPF_TRAMP_MODIFY_RETURN].nr_links)
		flags |= BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME;
	else
		flags |= BPF_TRAMP_F_RESTORE_REGS;

	s->id = ++tramp_shared_id;
	s->im = bpf_tramp_image_build(&m, func_addr, s->id | (1ULL << 63), tlinks, flags);
	if (IS_ERR(s->im)) {
		err = PTR_ERR(s->im);
		goto out_free;
	}
	kfree(tlinks);
	s->fresh = true;
	list_add_tail(&s->list, &tramp_shared_list);
	return s;

out_free:
	if (s)
		kfree(s->links);
	kfree(s);
	kfree(tlinks);
	return ERR_PTR(err);
}

/* A shared image calls the original function through its return address:
 * it works with live patches (IPMODIFY) as it is.
 */
static int shared_ops_func(struct ftrace_ops *ops, enum ftrace_ops_cmd cmd)
{
	return 0;
}

static void free_ops(struct ftrace_ops *ops)
{
	if (!ops)
		return;
	ftrace_direct_verify_unused(0, ops);
	ftrace_free_filter(ops);
	kfree(ops);
}

/* How one function changes in a reroute. */
struct multi_plan {
	struct bpf_trampoline *tr;
	struct bpf_tramp_shared *next;	/* the shared image it goes to, or */
	struct bpf_tramp_image *own_im;	/* its own image (ordinary programs) */
	struct ftrace_ops *own_ops;	/* and the ops calling that */
	u32 own_flags;
};

static int cmp_addr_plan(const void *key, const void *elt)
{
	unsigned long addr = *(unsigned long *)key;
	const struct multi_plan *p = elt;
	unsigned long a = (unsigned long)p->tr->func.addr;

	return addr < a ? -1 : addr > a;
}

static int tr_ordinary_cnt(const struct bpf_trampoline *tr)
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
	struct bpf_tracing_multi_func *f;
	int n = 0;

	hlist_for_each_entry(f, &tr->multi_links, tr_node) {
		struct bpf_tramp_links *tl = &tlinks[multi_kind(f->link->attach_type)];

		tl->links[tl->nr_links++] = &f->link->link;
		n++;
	}
	return n;
}

/* Build @p->tr's own image: its ordinary programs and its multi links. */
static int plan_own(struct multi_plan *p)
{
	struct bpf_trampoline *tr = p->tr;
	struct bpf_tramp_links *tlinks;
	struct bpf_tramp_image *im;
	struct ftrace_ops *ops;
	u32 flags;
	int total, err;

	tlinks = bpf_trampoline_get_progs(tr, &total);
	if (IS_ERR(tlinks))
		return PTR_ERR(tlinks);
	flags = BPF_TRAMP_F_IP_ARG | (tr->flags & BPF_TRAMP_F_TAIL_CALL_CTX);
	if (tlinks[BPF_TRAMP_FEXIT].nr_links || tlinks[BPF_TRAMP_MODIFY_RETURN].nr_links)
		flags |= BPF_TRAMP_F_CALL_ORIG | BPF_TRAMP_F_SKIP_FRAME;
	else
		flags |= BPF_TRAMP_F_RESTORE_REGS;
	im = bpf_tramp_image_build(&tr->func.model, tr->func.addr, tr->key, tlinks, flags);
	kfree(tlinks);
	if (IS_ERR(im))
		return PTR_ERR(im);
	ops = kzalloc(sizeof(*ops), GFP_KERNEL);
	err = -ENOMEM;
	if (!ops)
		goto out_im;
	ops->private = tr;
	ops->ops_func = shared_ops_func;
	ops->direct_call = (unsigned long)im->image;
	err = ftrace_set_filter_ip(ops, (unsigned long)tr->func.addr, 0, 1);
	if (err)
		goto out_ops;
	p->own_im = im;
	p->own_ops = ops;
	p->own_flags = flags;
	return 0;
out_ops:
	free_ops(ops);
out_im:
	bpf_tramp_image_free(im);
	return err;
}

/* Where @p's function goes once the planned change is made. */
static int plan_one(struct multi_plan *p)
{
	struct bpf_tracing_multi_link *links[BPF_MAX_TRAMP_LINKS];
	struct bpf_trampoline *tr = p->tr;
	struct bpf_tramp_shared *s;
	u8 nr_args = tr->func.model.nr_args, ret_off;
	u32 n;

	n = tr_links(tr, links);
	if (tr_ordinary_cnt(tr) ||
	    (links_call_orig(links, n) && !bpf_jit_supports_shared_call_orig()))
		return plan_own(p);
	if (!n)
		return 0;
	ret_off = tr_ret_off(tr);
	s = shared_find(nr_args, ret_off, links, n);
	if (!s) {
		s = shared_create(nr_args, ret_off, links, n);
		if (IS_ERR(s))
			return PTR_ERR(s);
	}
	p->next = s;
	return 0;
}

static void plan_touch(struct bpf_tramp_shared *s, int delta)
{
	if (s) {
		s->touched = true;
		s->delta += delta;
	}
}

/* The new ftrace_ops of a touched image: its functions after the change. */
static int shared_new_ops(struct bpf_tramp_shared *s, struct multi_plan *plans, u32 nr)
{
	struct bpf_trampoline *tr;
	unsigned long *ips;
	u32 n = 0, i, cnt = s->nr_funcs + s->delta;
	struct ftrace_ops *ops;
	int err;

	s->new_ops = NULL;
	if (!cnt)
		return 0;
	ips = kvmalloc_array(cnt, sizeof(*ips), GFP_KERNEL);
	ops = kzalloc(sizeof(*ops), GFP_KERNEL);
	err = -ENOMEM;
	if (!ips || !ops)
		goto out;
	/* the functions this change leaves alone */
	list_for_each_entry(tr, &s->funcs, shared_node) {
		unsigned long addr = (unsigned long)tr->func.addr;

		if (!bsearch(&addr, plans, nr, sizeof(*plans), cmp_addr_plan))
			ips[n++] = addr;
	}
	/* the functions of the change routed here */
	for (i = 0; i < nr; i++)
		if (plans[i].next == s)
			ips[n++] = (unsigned long)plans[i].tr->func.addr;
	err = -EFAULT;
	if (WARN_ON_ONCE(n != cnt))
		goto out;
	ops->private = s;
	ops->ops_func = shared_ops_func;
	ops->direct_call = (unsigned long)s->im->image;
	err = ftrace_set_filter_ips(ops, ips, n, 0, 1);
	if (err)
		goto out;
	s->new_ops = ops;
	ops = NULL;
out:
	kvfree(ips);
	kfree(ops);
	return err;
}

static void shared_free(struct bpf_tramp_shared *s, bool used)
{
	list_del(&s->list);
	if (used)
		bpf_tramp_image_put(s->im);
	else
		bpf_tramp_image_free(s->im);
	kfree(s->links);
	kfree(s);
}

/* Functions with multi links and their own image, for debugfs. */
static LIST_HEAD(tramp_own_list);

/* Record @p's new route once ftrace switched to it. */
static void plan_commit(struct multi_plan *p)
{
	struct bpf_trampoline *tr = p->tr;

	if (tr->shared_node.next)
		list_del_init(&tr->shared_node);
	if (tr->shared)
		tr->shared->nr_funcs--;
	tr->shared = p->next;
	if (p->next) {
		list_add_tail(&tr->shared_node, &p->next->funcs);
		p->next->nr_funcs++;
	}
	if (tr->cur_image)
		bpf_tramp_image_put(tr->cur_image);
	tr->cur_image = p->own_im;
	if (p->own_ops) {
		/* tr->fops was unregistered (or never registered) */
		free_ops(tr->fops);
		tr->fops = p->own_ops;
		tr->func.ftrace_managed = true;
		tr->flags = p->own_flags;
		if (tr->multi_cnt)
			list_add_tail(&tr->shared_node, &tramp_own_list);
	}
}

/*
 * Route each function of @plans (sorted by address) where its programs and
 * multi links say: its own image, a shared one, or nowhere. One
 * ftrace_direct_replace() switches them all, or on error none.
 */
static int multi_reroute(struct multi_plan *plans, u32 nr)
{
	struct ftrace_ops **add = NULL, **del = NULL;
	struct bpf_tramp_shared *s, *tmp;
	u32 i, nadd = 0, ndel = 0, ntouched = 0;
	int err = 0;

	lockdep_assert_held(&tramp_multi_mutex);
	for (i = 0; i < nr && !err; i++)
		err = plan_one(&plans[i]);
	if (err)
		goto out_plan;

	for (i = 0; i < nr; i++) {
		struct multi_plan *p = &plans[i];

		if (p->next == p->tr->shared)
			continue;
		plan_touch(p->tr->shared, -1);
		plan_touch(p->next, 1);
	}
	list_for_each_entry(s, &tramp_shared_list, list)
		ntouched += s->touched;

	err = -ENOMEM;
	add = kvcalloc(ntouched + nr, sizeof(*add), GFP_KERNEL);
	del = kvcalloc(ntouched + nr, sizeof(*del), GFP_KERNEL);
	if (!add || !del)
		goto out_plan;
	for (i = 0; i < nr; i++) {
		struct multi_plan *p = &plans[i];

		if (p->own_ops)
			add[nadd++] = p->own_ops;
		if (p->tr->cur_image)
			del[ndel++] = p->tr->fops;
	}
	list_for_each_entry(s, &tramp_shared_list, list) {
		if (!s->touched)
			continue;
		err = shared_new_ops(s, plans, nr);
		if (err)
			goto out_plan;
		if (s->new_ops)
			add[nadd++] = s->new_ops;
		if (s->ops)
			del[ndel++] = s->ops;
	}

	err = ftrace_direct_replace(add, nadd, del, ndel);
	if (err)
		goto out_plan;

	/* Done: record the new routes, free what is no longer used. */
	for (i = 0; i < nr; i++)
		plan_commit(&plans[i]);
	list_for_each_entry_safe(s, tmp, &tramp_shared_list, list) {
		if (!s->touched)
			continue;
		free_ops(s->ops);
		s->ops = s->new_ops;
		s->new_ops = NULL;
		s->touched = false;
		s->fresh = false;
		s->delta = 0;
		if (!s->nr_funcs)
			shared_free(s, true);
	}
	goto out;

out_plan:
	for (i = 0; i < nr; i++) {
		struct multi_plan *p = &plans[i];

		free_ops(p->own_ops);
		if (p->own_im)
			bpf_tramp_image_free(p->own_im);
		p->own_ops = NULL;
		p->own_im = NULL;
		p->next = NULL;
	}
	list_for_each_entry_safe(s, tmp, &tramp_shared_list, list) {
		free_ops(s->new_ops);
		s->new_ops = NULL;
		s->touched = false;
		s->delta = 0;
		if (s->fresh)
			shared_free(s, false);
	}
out:
	kvfree(add);
	kvfree(del);
	return err;
}

static int multi_link_reroute(struct bpf_tracing_multi_link *link)
{
	struct multi_plan *plans;
	u32 i;
	int err;

	plans = kvcalloc(link->cnt, sizeof(*plans), GFP_KERNEL);
	if (!plans)
		return -ENOMEM;
	for (i = 0; i < link->cnt; i++)
		plans[i].tr = link->funcs[i].tr;
	err = multi_reroute(plans, link->cnt);
	kvfree(plans);
	return err;
}

/**
 * bpf_tramp_multi_update - bpf_trampoline_update() of a function with multi links
 * @tr: the function's trampoline; tramp_multi_mutex and tr->mutex held
 *
 * Return: 0 or a negative errno; on error the function's route is unchanged.
 */
int bpf_tramp_multi_update(struct bpf_trampoline *tr)
{
	struct multi_plan plan = { .tr = tr };

	return multi_reroute(&plan, 1);
}

void bpf_tramp_multi_lock(void)
{
	mutex_lock(&tramp_multi_mutex);
}

void bpf_tramp_multi_unlock(void)
{
	mutex_unlock(&tramp_multi_mutex);
}

/* Add (or remove) @link's functions to (from) their trampolines. */
static int multi_link_set(struct bpf_tracing_multi_link *link, bool add, u32 cnt)
{
	u32 i;
	int j, err = 0;

	for (i = 0; i < cnt; i++) {
		struct bpf_tracing_multi_func *f = &link->funcs[i];
		struct bpf_trampoline *tr = f->tr;

		mutex_lock(&tr->mutex);
		if (!add) {
			hlist_del(&f->tr_node);
			WRITE_ONCE(tr->multi_cnt, tr->multi_cnt - 1);
		} else if (tr->extension_prog) {
			err = -EBUSY;
		} else if (tr_ordinary_cnt(tr) + tr->multi_cnt >= BPF_MAX_TRAMP_LINKS) {
			err = -E2BIG;
		} else {
			hlist_add_head(&f->tr_node, &tr->multi_links);
			WRITE_ONCE(tr->multi_cnt, tr->multi_cnt + 1);
		}
		mutex_unlock(&tr->mutex);
		if (err)
			break;
	}
	if (err) {
		for (j = i - 1; j >= 0; j--) {
			struct bpf_trampoline *tr = link->funcs[j].tr;

			mutex_lock(&tr->mutex);
			hlist_del(&link->funcs[j].tr_node);
			WRITE_ONCE(tr->multi_cnt, tr->multi_cnt - 1);
			mutex_unlock(&tr->mutex);
		}
	}
	return err;
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
	}
}

static void bpf_tracing_multi_link_release(struct bpf_link *l)
{
	struct bpf_tracing_multi_link *link =
		container_of(l, struct bpf_tracing_multi_link, link.link);

	mutex_lock(&tramp_multi_mutex);
	multi_link_set(link, false, link->cnt);
	/* Like bpf_trampoline_unlink_prog(), this is not expected to fail. */
	WARN_ON_ONCE(multi_link_reroute(link));
	mutex_unlock(&tramp_multi_mutex);
	multi_link_put_trampolines(link);
}

/* Runs after an RCU grace period (programs may read funcs[] until then). */
static void bpf_tracing_multi_link_dealloc(struct bpf_link *l)
{
	struct bpf_tracing_multi_link *link =
		container_of(l, struct bpf_tracing_multi_link, link.link);

	kvfree(link->funcs);
	module_put(link->mod);
	btf_put(link->btf);
	kfree(link);
}

static void bpf_tracing_multi_link_show_fdinfo(const struct bpf_link *l,
					       struct seq_file *seq)
{
	struct bpf_tracing_multi_link *link =
		container_of(l, struct bpf_tracing_multi_link, link.link);

	seq_printf(seq, "attach_type:\t%d\nfunc_cnt:\t%u\n",
		   link->attach_type, link->cnt);
}

static int copy_u64s_to_user(u64 __user *ubuf, u32 ucount, u32 cnt,
			     struct bpf_tracing_multi_link *link, int what)
{
	u32 i;
	u64 v;

	if (!ubuf)
		return 0;
	for (i = 0; i < min(ucount, cnt); i++) {
		if (what == 0)
			v = link->funcs[i].addr;
		else if (what == 1)
			v = link->funcs[i].cookie;
		else
			v = link->funcs[i].btf_id;
		if (what == 2 ? put_user((u32)v, (u32 __user *)ubuf + i) :
				put_user(v, ubuf + i))
			return -EFAULT;
	}
	return 0;
}

static int bpf_tracing_multi_link_fill_link_info(const struct bpf_link *l,
						 struct bpf_link_info *info)
{
	struct bpf_tracing_multi_link *link =
		container_of(l, struct bpf_tracing_multi_link, link.link);
	u64 __user *uaddrs = u64_to_user_ptr(info->tracing_multi.addrs);
	u64 __user *ucookies = u64_to_user_ptr(info->tracing_multi.cookies);
	u64 __user *uids = u64_to_user_ptr(info->tracing_multi.ids);
	u32 ucount = info->tracing_multi.count;
	int err = 0;

	info->tracing_multi.count = link->cnt;
	info->tracing_multi.attach_type = link->attach_type;
	info->tracing_multi.btf_obj_id = btf_obj_id(link->btf);
	if (!uaddrs && !ucookies && !uids)
		return 0;
	if (ucount < link->cnt)
		err = -ENOSPC;
	if (!kallsyms_show_value(current_cred()))
		uaddrs = NULL;
	if (copy_u64s_to_user(uaddrs, ucount, link->cnt, link, 0) ||
	    copy_u64s_to_user(ucookies, ucount, link->cnt, link, 1) ||
	    copy_u64s_to_user(uids, ucount, link->cnt, link, 2))
		return -EFAULT;
	return err;
}

static const struct bpf_link_ops bpf_tracing_multi_link_lops = {
	.release = bpf_tracing_multi_link_release,
	.dealloc_deferred = bpf_tracing_multi_link_dealloc,
	.show_fdinfo = bpf_tracing_multi_link_show_fdinfo,
	.fill_link_info = bpf_tracing_multi_link_fill_link_info,
};

static int count_symbol(void *data, unsigned long addr)
{
	if (core_kernel_text(addr))	/* a function, not data of the same name */
		(*(int *)data)++;
	return 0;
}

/* Does kallsyms know more than one vmlinux function of this name? */
static bool name_is_ambiguous(const char *name)
{
	int n = 0;

	kallsyms_on_each_match_symbol(count_symbol, name, &n);
	return n > 1;
}

/* Resolve and check ids[], take each function's trampoline. */
static int multi_link_resolve(struct bpf_tracing_multi_link *link, struct bpf_prog *prog,
			      u32 *ids, u64 *cookies)
{
	struct bpf_attach_target_info tgt_info;
	u32 i;
	int err;

	for (i = 0; i < link->cnt; i++) {
		struct bpf_tracing_multi_func *f = &link->funcs[i];

		memset(&tgt_info, 0, sizeof(tgt_info));
		err = bpf_check_multi_attach_target(NULL, prog, link->btf, ids[i], &tgt_info);
		if (err)
			return err;
		module_put(tgt_info.tgt_mod);	/* the link holds link->mod */
		if (!ftrace_location(tgt_info.tgt_addr))
			return -EINVAL;
		/* which of the functions of that name would be traced? */
		if (!btf_is_module(link->btf) && name_is_ambiguous(tgt_info.tgt_name))
			return -EINVAL;
		f->addr = tgt_info.tgt_addr;
		f->btf_id = ids[i];
		f->cookie = cookies ? cookies[i] : 0;
		f->link = link;
		f->tr = bpf_trampoline_get(bpf_trampoline_compute_key(NULL, link->btf, ids[i]),
					   &tgt_info);
		if (!f->tr)
			return -ENOMEM;
	}
	sort(link->funcs, link->cnt, sizeof(*link->funcs), cmp_func_addr, NULL);
	for (i = 1; i < link->cnt; i++)
		if (link->funcs[i].addr == link->funcs[i - 1].addr)
			return -EINVAL;
	return 0;
}

/**
 * bpf_tracing_multi_link_attach - BPF_LINK_CREATE for fentry/fexit/fmod_ret.multi
 * @attr: link_create.tracing_multi: ids, cookies, cnt; target_fd: BTF object
 *        fd of the ids, or 0 for vmlinux
 * @prog: the program, expected_attach_type one of the *_MULTI types
 *
 * Return: a link fd, or -EINVAL (bad attr, an id not a traceable function,
 * a duplicate), -E2BIG (cnt too large, a function with too many links),
 * -EBUSY (a function with an extension program, or one whose direct call
 * another ftrace user holds), -ENOENT, -ENOMEM, -EFAULT.
 */
int bpf_tracing_multi_link_attach(const union bpf_attr *attr, struct bpf_prog *prog)
{
	u32 cnt = attr->link_create.tracing_multi.cnt;
	void __user *uids = u64_to_user_ptr(attr->link_create.tracing_multi.ids);
	void __user *ucookies = u64_to_user_ptr(attr->link_create.tracing_multi.cookies);
	struct bpf_tracing_multi_link *link = NULL;
	struct bpf_link_primer primer;
	u64 *cookies = NULL;
	u32 *ids = NULL;
	struct btf *btf;
	int err;

	if (!bpf_jit_supports_shared_trampoline())
		return -EOPNOTSUPP;
	if (attr->link_create.flags || !cnt || !uids)
		return -EINVAL;
	if (cnt > BPF_TRACING_MULTI_MAX_CNT)
		return -E2BIG;

	if (attr->link_create.target_fd) {
		btf = btf_get_by_fd(attr->link_create.target_fd);
		if (IS_ERR(btf))
			return PTR_ERR(btf);
		if (!btf_is_kernel(btf)) {
			btf_put(btf);
			return -EINVAL;
		}
	} else {
		btf = bpf_get_btf_vmlinux();
		if (IS_ERR_OR_NULL(btf))
			return btf ? PTR_ERR(btf) : -EINVAL;
		btf_get(btf);
	}

	err = -ENOMEM;
	link = kzalloc(sizeof(*link), GFP_KERNEL);
	ids = kvmalloc_array(cnt, sizeof(*ids), GFP_KERNEL);
	if (ucookies)
		cookies = kvmalloc_array(cnt, sizeof(*cookies), GFP_KERNEL);
	if (!link || !ids || (ucookies && !cookies))
		goto out_btf;
	link->funcs = kvcalloc(cnt, sizeof(*link->funcs), GFP_KERNEL);
	if (!link->funcs)
		goto out_btf;
	link->btf = btf;
	link->attach_type = prog->expected_attach_type;
	link->cnt = cnt;
	err = -EFAULT;
	if (copy_from_user(ids, uids, cnt * sizeof(*ids)) ||
	    (cookies && copy_from_user(cookies, ucookies, cnt * sizeof(*cookies))))
		goto out_btf;
	if (btf_is_module(btf)) {
		link->mod = btf_try_get_module(btf);
		err = -ENOENT;
		if (!link->mod)
			goto out_btf;
	}

	bpf_link_init(&link->link.link, BPF_LINK_TYPE_TRACING_MULTI,
		      &bpf_tracing_multi_link_lops, prog);
	link->link.cookie = (u64)(unsigned long)link;
	err = multi_link_resolve(link, prog, ids, cookies);
	if (err)
		goto out_link;
	err = bpf_link_prime(&link->link.link, &primer);
	if (err)
		goto out_link;

	mutex_lock(&tramp_multi_mutex);
	err = multi_link_set(link, true, link->cnt);
	if (!err) {
		err = multi_link_reroute(link);
		if (err)
			multi_link_set(link, false, link->cnt);
	}
	mutex_unlock(&tramp_multi_mutex);
	kvfree(ids);
	kvfree(cookies);
	if (err) {
		multi_link_put_trampolines(link);
		bpf_link_cleanup(&primer);	/* frees the link */
		return err;
	}
	return bpf_link_settle(&primer);

out_link:
	multi_link_put_trampolines(link);
	bpf_tracing_multi_link_dealloc(&link->link.link);
	kvfree(ids);
	kvfree(cookies);
	return err;
out_btf:
	if (link)
		kvfree(link->funcs);
	kfree(link);
	kvfree(ids);
	kvfree(cookies);
	btf_put(btf);
	return err;
}

/* bpf_get_attach_cookie() of a multi program: the cookie of the function
 * it runs for, found by the IP its trampoline stored at ctx[-2].
 */
BPF_CALL_1(bpf_get_attach_cookie_tracing_multi, void *, ctx)
{
	struct bpf_trace_run_ctx *run_ctx =
		container_of(current->bpf_ctx, struct bpf_trace_run_ctx, run_ctx);
	struct bpf_tracing_multi_link *link = (void *)(unsigned long)run_ctx->bpf_cookie;
	unsigned long ip = ((u64 *)ctx)[-2];
	struct bpf_tracing_multi_func *f;

	f = bsearch(&ip, link->funcs, link->cnt, sizeof(*f), cmp_addr_func);
	return f ? f->cookie : 0;
}

const struct bpf_func_proto bpf_get_attach_cookie_proto_tracing_multi = {
	.func		= bpf_get_attach_cookie_tracing_multi,
	.gpl_only	= false,
	.ret_type	= RET_INTEGER,
	.arg1_type	= ARG_PTR_TO_CTX,
};

#ifdef CONFIG_DEBUG_FS
static void show_links(struct seq_file *m, struct bpf_tracing_multi_link **links, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		seq_printf(m, "%s%u", i ? "," : "", links[i]->link.link.id);
	seq_putc(m, '\n');
}

/*
 * <debugfs>/bpf_multi_trampolines: every trampoline that runs multi links,
 * one line each, then its functions, one a line:
 *   shared <id> args=<n> funcs=<n> links=<link ids>
 *   own args=<n> progs=<ordinary programs> links=<link ids>
 */
static int multi_tramps_show(struct seq_file *m, void *v)
{
	struct bpf_tracing_multi_link *links[BPF_MAX_TRAMP_LINKS];
	struct bpf_tramp_shared *s;
	struct bpf_trampoline *tr;

	mutex_lock(&tramp_multi_mutex);
	list_for_each_entry(s, &tramp_shared_list, list) {
		seq_printf(m, "shared %llu args=%u funcs=%u links=", s->id, s->nr_args,
			   s->nr_funcs);
		show_links(m, s->links, s->nr_links);
		list_for_each_entry(tr, &s->funcs, shared_node)
			seq_printf(m, "\t%ps\n", tr->func.addr);
	}
	list_for_each_entry(tr, &tramp_own_list, shared_node) {
		seq_printf(m, "own args=%u progs=%d links=", tr->func.model.nr_args,
			   tr_ordinary_cnt(tr));
		show_links(m, links, tr_links(tr, links));
		seq_printf(m, "\t%ps\n", tr->func.addr);
	}
	mutex_unlock(&tramp_multi_mutex);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(multi_tramps);

static int __init tramp_multi_debugfs_init(void)
{
	debugfs_create_file("bpf_multi_trampolines", 0400, NULL, NULL, &multi_tramps_fops);
	return 0;
}
late_initcall(tramp_multi_debugfs_init);
#endif
