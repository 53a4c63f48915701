/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dbusauth.c -- who may do what through the D-Bus door (dbus.h): the
 * decision table, and polkit's answers read fail-closed.  Pure.
 */
#include "dbus.h"

void
dbusauth_need(enum door_method m, uid_t caller, uid_t target, struct door_need *out)
{
	*out = (struct door_need){ 0 };
	if (caller == 0)
		return; /* root: the control socket lets it do everything too */
	switch (m) {
	case DOOR_STATUS:
	case DOOR_LIST:
	case DOOR_EXPLAIN:
	case DOOR_UNBOOST:
		return; /* the verbs show and end only the caller's own */
	case DOOR_BOOST:
		if (target == caller) {
			out->action = DOOR_ACTION_BOOST_OWN;
		} else {
			out->action = DOOR_ACTION_BOOST_ANY;
			out->as_root = true;
		}
		return;
	case DOOR_FOREGROUND:
		if (target != caller) {
			out->deny =
				"the foreground is only ever the caller's own process";
			return;
		}
		out->action = DOOR_ACTION_FOREGROUND;
		out->session = true;
		return;
	}
	out->deny = "unknown method";
}

const char *
dbusauth_polkit(enum door_polkit a)
{
	switch (a) {
	case DOOR_POLKIT_YES:
		return NULL;
	case DOOR_POLKIT_NO:
		return "not authorized by polkit";
	case DOOR_POLKIT_ABSENT:
		break;
	}
	return "polkit did not answer (refused)";
}
