/*
 * export.h: symbol visibility.  The library is built with hidden
 * visibility; only declarations marked SHT_API are exported.
 */
#ifndef SHT_EXPORT_H
#define SHT_EXPORT_H

#if defined(_WIN32)
#define SHT_API
#elif defined(__GNUC__) && __GNUC__ >= 4
#define SHT_API __attribute__((visibility("default")))
#else
#define SHT_API
#endif

#endif /* SHT_EXPORT_H */
