/*
 * sht.h: umbrella header of libsht, the state history tree library.
 * Include only this one.
 */
#ifndef SHT_SHT_H
#define SHT_SHT_H

#include "sht/export.h"
#include "sht/version.h"
#include "sht/error.h"
#include "sht/value.h"
#include "sht/model.h"
#include "sht/tree.h"
#include "sht/state.h"
#include "sht/analysis.h"
#include "sht/rules.h"
#include "sht/trace.h"
#include "sht/vstf.h"
#include "sht/sync.h"
#include "sht/resume.h"

#endif /* SHT_SHT_H */
