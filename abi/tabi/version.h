/* tabi/version.h: ABI and library versions.
 *
 * The ABI version is what a plugin and the host negotiate. Rules:
 *  - Every struct that crosses the boundary starts with `uint32_t struct_size`
 *    (the host table also carries the ABI version). Structs only grow at the end.
 *  - A reader treats fields past the writer's struct_size as absent (zero/NULL),
 *    never as an error. That is how a plugin built against an older minor loads.
 *  - Removing, reordering or retyping anything is a major bump. A plugin whose
 *    major differs from the host's is refused with a message naming both.
 *  - The version in effect between a host and a plugin is the lower minor.
 */
#ifndef TABI_VERSION_H
#define TABI_VERSION_H

#include <stddef.h>
#include <stdint.h>

#define TABI_ABI_VERSION_MAJOR 1
#define TABI_ABI_VERSION_MINOR 0

#define TABI_VERSION_MAJOR 0
#define TABI_VERSION_MINOR 1
#define TABI_VERSION_PATCH 0
#define TABI_VERSION_STRING "0.1.0"

/* True when the struct `*s` of type `type`, written by a peer that may be older,
 * reaches past `field`: fields it does not reach are absent (read them as 0/NULL). */
#define TABI_FIELD_PRESENT(type, s, field) \
  ((s)->struct_size >= (uint32_t)(offsetof(type, field) + sizeof(((type *)0)->field)))

#endif /* TABI_VERSION_H */
