/* SPDX-License-Identifier: GPL-2.0 */
#ifndef IOMAPDIRTY_VERSION_H
#define IOMAPDIRTY_VERSION_H

#define IOMAPDIRTY_VERSION	"0.1.0"

#endif
