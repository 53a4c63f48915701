/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sdload.c -- libsystemd's sd-bus, loaded at its first use.  The daemon
 * talks to a bus only for the D-Bus door, the systemd backend, the
 * users' managers and GNOME's foreground, none of which is on by
 * default, and libsystemd brings six libraries of its own (libgcrypt
 * and libgpg-error, liblz4, libzstd, liblzma, libcap): about 0.8 MiB of
 * resident memory from the start, for nothing, if it were linked.  So
 * the daemon does not link it: each sd_bus_* function it calls is
 * defined here, with sd-bus.h's prototype, and calls libsystemd's own,
 * found with dlsym() in libsystemd.so.0, opened at the first call (a
 * test that links libsystemd gets the same functions through here).
 * Without the library (or one of its functions) a call fails with
 * -ENOPKG; a bus, message or slot cannot exist then, so the functions
 * that take one and return a pointer return NULL.  The variadic ones
 * call their va_list twins (libsystemd 246 and later); sd_bus_error_setf
 * formats its message here.  Called from the loop's thread only.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <systemd/sd-bus.h>

#include "util/util.h"

static struct dlib lib = { .soname = "libsystemd.so.0" };

/* Set *fn, a function pointer, to libsystemd's function name once;
 * 0, or -1 without the library or the function. */
static int
lookup(void *fn, const char *name)
{
	return dlib_sym(&lib, fn, name);
}

/*
 * The vtables.  SD_BUS_VTABLE_START points each table at
 * sd_bus_object_vtable_format, by which libsystemd knows the table's
 * layout (the version that names parameters) -- by its own variable's
 * address, which the daemon cannot name when it does not link the
 * library.  So the tables point at this one, and each is copied once,
 * at its first registration, with the pointer mended; the copies live
 * as long as the process (libsystemd keeps the table it is given).
 */
const unsigned sd_bus_object_vtable_format = 242;

#define VTABLES 8 /* tables registered at most (dbus.c has two, dbus-t two more) */

static const sd_bus_vtable *
mended(const sd_bus_vtable *vt)
{
	static struct {
		const sd_bus_vtable *orig;
		sd_bus_vtable *copy;
	} kept[VTABLES];
	const unsigned *format = NULL;
	size_t i, n = 1;

	for (i = 0; i < VTABLES && kept[i].orig != NULL; i++)
		if (kept[i].orig == vt)
			return kept[i].copy;
	if (i == VTABLES || lookup(&format, "sd_bus_object_vtable_format") < 0)
		return NULL;
	while (vt[n - 1].type != _SD_BUS_VTABLE_END)
		n++;
	if ((kept[i].copy = malloc(n * sizeof(*vt))) == NULL)
		return NULL;
	memcpy(kept[i].copy, vt, n * sizeof(*vt));
	kept[i].copy[0].x.start.vtable_format_reference = format;
	kept[i].orig = vt;
	return kept[i].copy;
}

int
sd_bus_add_object_vtable(sd_bus *bus, sd_bus_slot **slot, const char *path,
			 const char *interface, const sd_bus_vtable *vtable,
			 void *userdata)
{
	static int (*real)(sd_bus *, sd_bus_slot **, const char *, const char *,
			   const sd_bus_vtable *, void *);
	const sd_bus_vtable *vt;

	if (lookup(&real, "sd_bus_add_object_vtable") < 0)
		return -ENOPKG;
	if ((vt = mended(vtable)) == NULL)
		return -ENOMEM;
	return real(bus, slot, path, interface, vt, userdata);
}

int
sd_bus_error_setf(sd_bus_error *e, const char *name, const char *format, ...)
{
	char *msg = NULL;
	va_list ap;
	int rc;

	va_start(ap, format);
	rc = vasprintf(&msg, format, ap);
	va_end(ap);
	if (rc < 0)
		return -ENOMEM;
	rc = sd_bus_error_set(e, name, msg);
	free(msg);
	return rc;
}

/* ---- the others, one to one ---------------------------------------------- */

int
sd_bus_add_match_async(sd_bus *bus, sd_bus_slot **slot, const char *match,
		       sd_bus_message_handler_t callback,
		       sd_bus_message_handler_t install_callback, void *userdata)
{
	static int (*real)(sd_bus *, sd_bus_slot **, const char *,
			   sd_bus_message_handler_t, sd_bus_message_handler_t, void *);

	return lookup(&real, "sd_bus_add_match_async") < 0
		       ? -ENOPKG
		       : real(bus, slot, match, callback, install_callback, userdata);
}

int
sd_bus_call_async(sd_bus *bus, sd_bus_slot **slot, sd_bus_message *m,
		  sd_bus_message_handler_t callback, void *userdata, uint64_t usec)
{
	static int (*real)(sd_bus *, sd_bus_slot **, sd_bus_message *,
			   sd_bus_message_handler_t, void *, uint64_t);

	return lookup(&real, "sd_bus_call_async") < 0
		       ? -ENOPKG
		       : real(bus, slot, m, callback, userdata, usec);
}

int
sd_bus_call_method_async(sd_bus *bus, sd_bus_slot **slot, const char *destination,
			 const char *path, const char *interface, const char *member,
			 sd_bus_message_handler_t callback, void *userdata,
			 const char *types, ...)
{
	static int (*real)(sd_bus *, sd_bus_slot **, const char *, const char *,
			   const char *, const char *, sd_bus_message_handler_t, void *,
			   const char *, va_list);
	va_list ap;
	int rc;

	if (lookup(&real, "sd_bus_call_method_asyncv") < 0)
		return -ENOPKG;
	va_start(ap, types);
	rc = real(bus, slot, destination, path, interface, member, callback, userdata,
		  types, ap);
	va_end(ap);
	return rc;
}

sd_bus *
sd_bus_close_unref(sd_bus *bus)
{
	static sd_bus *(*real)(sd_bus *);

	return lookup(&real, "sd_bus_close_unref") < 0 ? NULL : real(bus);
}

int
sd_bus_emit_signal(sd_bus *bus, const char *path, const char *interface,
		   const char *member, const char *types, ...)
{
	static int (*real)(sd_bus *, const char *, const char *, const char *,
			   const char *, va_list);
	va_list ap;
	int rc;

	if (lookup(&real, "sd_bus_emit_signalv") < 0)
		return -ENOPKG;
	va_start(ap, types);
	rc = real(bus, path, interface, member, types, ap);
	va_end(ap);
	return rc;
}

int
sd_bus_error_get_errno(const sd_bus_error *e)
{
	static int (*real)(const sd_bus_error *);

	return lookup(&real, "sd_bus_error_get_errno") < 0 ? -ENOPKG : real(e);
}

int
sd_bus_error_has_name(const sd_bus_error *e, const char *name)
{
	static int (*real)(const sd_bus_error *, const char *);

	return lookup(&real, "sd_bus_error_has_name") < 0 ? -ENOPKG : real(e, name);
}

int
sd_bus_error_set(sd_bus_error *e, const char *name, const char *message)
{
	static int (*real)(sd_bus_error *, const char *, const char *);

	return lookup(&real, "sd_bus_error_set") < 0 ? -ENOPKG : real(e, name, message);
}

int
sd_bus_error_set_errno(sd_bus_error *e, int error)
{
	static int (*real)(sd_bus_error *, int);

	return lookup(&real, "sd_bus_error_set_errno") < 0 ? -ENOPKG : real(e, error);
}

int
sd_bus_get_events(sd_bus *bus)
{
	static int (*real)(sd_bus *);

	return lookup(&real, "sd_bus_get_events") < 0 ? -ENOPKG : real(bus);
}

int
sd_bus_get_fd(sd_bus *bus)
{
	static int (*real)(sd_bus *);

	return lookup(&real, "sd_bus_get_fd") < 0 ? -ENOPKG : real(bus);
}

int
sd_bus_get_timeout(sd_bus *bus, uint64_t *timeout_usec)
{
	static int (*real)(sd_bus *, uint64_t *);

	return lookup(&real, "sd_bus_get_timeout") < 0 ? -ENOPKG
						       : real(bus, timeout_usec);
}

int
sd_bus_is_open(sd_bus *bus)
{
	static int (*real)(sd_bus *);

	return lookup(&real, "sd_bus_is_open") < 0 ? -ENOPKG : real(bus);
}

int
sd_bus_is_ready(sd_bus *bus)
{
	static int (*real)(sd_bus *);

	return lookup(&real, "sd_bus_is_ready") < 0 ? -ENOPKG : real(bus);
}

int
sd_bus_match_signal_async(sd_bus *bus, sd_bus_slot **ret, const char *sender,
			  const char *path, const char *interface, const char *member,
			  sd_bus_message_handler_t match_callback,
			  sd_bus_message_handler_t add_callback, void *userdata)
{
	static int (*real)(sd_bus *, sd_bus_slot **, const char *, const char *,
			   const char *, const char *, sd_bus_message_handler_t,
			   sd_bus_message_handler_t, void *);

	return lookup(&real, "sd_bus_match_signal_async") < 0
		       ? -ENOPKG
		       : real(bus, ret, sender, path, interface, member, match_callback,
			      add_callback, userdata);
}

int
sd_bus_message_append(sd_bus_message *m, const char *types, ...)
{
	static int (*real)(sd_bus_message *, const char *, va_list);
	va_list ap;
	int rc;

	if (lookup(&real, "sd_bus_message_appendv") < 0)
		return -ENOPKG;
	va_start(ap, types);
	rc = real(m, types, ap);
	va_end(ap);
	return rc;
}

int
sd_bus_message_append_array(sd_bus_message *m, char type, const void *ptr, size_t size)
{
	static int (*real)(sd_bus_message *, char, const void *, size_t);

	return lookup(&real, "sd_bus_message_append_array") < 0
		       ? -ENOPKG
		       : real(m, type, ptr, size);
}

int
sd_bus_message_close_container(sd_bus_message *m)
{
	static int (*real)(sd_bus_message *);

	return lookup(&real, "sd_bus_message_close_container") < 0 ? -ENOPKG : real(m);
}

int
sd_bus_message_enter_container(sd_bus_message *m, char type, const char *contents)
{
	static int (*real)(sd_bus_message *, char, const char *);

	return lookup(&real, "sd_bus_message_enter_container") < 0
		       ? -ENOPKG
		       : real(m, type, contents);
}

int
sd_bus_message_exit_container(sd_bus_message *m)
{
	static int (*real)(sd_bus_message *);

	return lookup(&real, "sd_bus_message_exit_container") < 0 ? -ENOPKG : real(m);
}

int
sd_bus_message_get_allow_interactive_authorization(sd_bus_message *m)
{
	static int (*real)(sd_bus_message *);

	return lookup(&real, "sd_bus_message_get_allow_interactive_authorization") < 0
		       ? -ENOPKG
		       : real(m);
}

const sd_bus_error *
sd_bus_message_get_error(sd_bus_message *m)
{
	static const sd_bus_error *(*real)(sd_bus_message *);

	return lookup(&real, "sd_bus_message_get_error") < 0 ? NULL : real(m);
}

const char *
sd_bus_message_get_sender(sd_bus_message *m)
{
	static const char *(*real)(sd_bus_message *);

	return lookup(&real, "sd_bus_message_get_sender") < 0 ? NULL : real(m);
}

int
sd_bus_message_is_method_error(sd_bus_message *m, const char *name)
{
	static int (*real)(sd_bus_message *, const char *);

	return lookup(&real, "sd_bus_message_is_method_error") < 0 ? -ENOPKG
								   : real(m, name);
}

int
sd_bus_message_new_method_call(sd_bus *bus, sd_bus_message **m, const char *destination,
			       const char *path, const char *interface,
			       const char *member)
{
	static int (*real)(sd_bus *, sd_bus_message **, const char *, const char *,
			   const char *, const char *);

	return lookup(&real, "sd_bus_message_new_method_call") < 0
		       ? -ENOPKG
		       : real(bus, m, destination, path, interface, member);
}

int
sd_bus_message_open_container(sd_bus_message *m, char type, const char *contents)
{
	static int (*real)(sd_bus_message *, char, const char *);

	return lookup(&real, "sd_bus_message_open_container") < 0
		       ? -ENOPKG
		       : real(m, type, contents);
}

int
sd_bus_message_read(sd_bus_message *m, const char *types, ...)
{
	static int (*real)(sd_bus_message *, const char *, va_list);
	va_list ap;
	int rc;

	if (lookup(&real, "sd_bus_message_readv") < 0)
		return -ENOPKG;
	va_start(ap, types);
	rc = real(m, types, ap);
	va_end(ap);
	return rc;
}

int
sd_bus_message_read_array(sd_bus_message *m, char type, const void **ptr, size_t *size)
{
	static int (*real)(sd_bus_message *, char, const void **, size_t *);

	return lookup(&real, "sd_bus_message_read_array") < 0 ? -ENOPKG
							      : real(m, type, ptr, size);
}

sd_bus_message *
sd_bus_message_ref(sd_bus_message *m)
{
	static sd_bus_message *(*real)(sd_bus_message *);

	return lookup(&real, "sd_bus_message_ref") < 0 ? NULL : real(m);
}

int
sd_bus_message_skip(sd_bus_message *m, const char *types)
{
	static int (*real)(sd_bus_message *, const char *);

	return lookup(&real, "sd_bus_message_skip") < 0 ? -ENOPKG : real(m, types);
}

sd_bus_message *
sd_bus_message_unref(sd_bus_message *m)
{
	static sd_bus_message *(*real)(sd_bus_message *);

	return lookup(&real, "sd_bus_message_unref") < 0 ? NULL : real(m);
}

int
sd_bus_negotiate_fds(sd_bus *bus, int b)
{
	static int (*real)(sd_bus *, int);

	return lookup(&real, "sd_bus_negotiate_fds") < 0 ? -ENOPKG : real(bus, b);
}

int
sd_bus_new(sd_bus **ret)
{
	static int (*real)(sd_bus **);

	return lookup(&real, "sd_bus_new") < 0 ? -ENOPKG : real(ret);
}

int
sd_bus_open_system(sd_bus **ret)
{
	static int (*real)(sd_bus **);

	return lookup(&real, "sd_bus_open_system") < 0 ? -ENOPKG : real(ret);
}

int
sd_bus_process(sd_bus *bus, sd_bus_message **r)
{
	static int (*real)(sd_bus *, sd_bus_message **);

	return lookup(&real, "sd_bus_process") < 0 ? -ENOPKG : real(bus, r);
}

int
sd_bus_reply_method_errorf(sd_bus_message *call, const char *name, const char *format,
			   ...)
{
	static int (*real)(sd_bus_message *, const char *, const char *, va_list);
	va_list ap;
	int rc;

	if (lookup(&real, "sd_bus_reply_method_errorfv") < 0)
		return -ENOPKG;
	va_start(ap, format);
	rc = real(call, name, format, ap);
	va_end(ap);
	return rc;
}

int
sd_bus_reply_method_return(sd_bus_message *call, const char *types, ...)
{
	static int (*real)(sd_bus_message *, const char *, va_list);
	va_list ap;
	int rc;

	if (lookup(&real, "sd_bus_reply_method_returnv") < 0)
		return -ENOPKG;
	va_start(ap, types);
	rc = real(call, types, ap);
	va_end(ap);
	return rc;
}

int
sd_bus_request_name_async(sd_bus *bus, sd_bus_slot **ret_slot, const char *name,
			  uint64_t flags, sd_bus_message_handler_t callback,
			  void *userdata)
{
	static int (*real)(sd_bus *, sd_bus_slot **, const char *, uint64_t,
			   sd_bus_message_handler_t, void *);

	return lookup(&real, "sd_bus_request_name_async") < 0
		       ? -ENOPKG
		       : real(bus, ret_slot, name, flags, callback, userdata);
}

int
sd_bus_set_address(sd_bus *bus, const char *address)
{
	static int (*real)(sd_bus *, const char *);

	return lookup(&real, "sd_bus_set_address") < 0 ? -ENOPKG : real(bus, address);
}

int
sd_bus_set_bus_client(sd_bus *bus, int b)
{
	static int (*real)(sd_bus *, int);

	return lookup(&real, "sd_bus_set_bus_client") < 0 ? -ENOPKG : real(bus, b);
}

int
sd_bus_slot_set_destroy_callback(sd_bus_slot *s, sd_bus_destroy_t callback)
{
	static int (*real)(sd_bus_slot *, sd_bus_destroy_t);

	return lookup(&real, "sd_bus_slot_set_destroy_callback") < 0 ? -ENOPKG
								     : real(s, callback);
}

int
sd_bus_slot_set_floating(sd_bus_slot *slot, int b)
{
	static int (*real)(sd_bus_slot *, int);

	return lookup(&real, "sd_bus_slot_set_floating") < 0 ? -ENOPKG : real(slot, b);
}

sd_bus_slot *
sd_bus_slot_unref(sd_bus_slot *slot)
{
	static sd_bus_slot *(*real)(sd_bus_slot *);

	return lookup(&real, "sd_bus_slot_unref") < 0 ? NULL : real(slot);
}

int
sd_bus_start(sd_bus *bus)
{
	static int (*real)(sd_bus *);

	return lookup(&real, "sd_bus_start") < 0 ? -ENOPKG : real(bus);
}

sd_bus *
sd_bus_unref(sd_bus *bus)
{
	static sd_bus *(*real)(sd_bus *);

	return lookup(&real, "sd_bus_unref") < 0 ? NULL : real(bus);
}
