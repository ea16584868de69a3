.output-ppc64le/report.o: user/report.c include/buckets.h \
 include/iomapdirty.h user/fsinfo.h user/json.h user/report.h \
 user/engine.h user/plan.h user/facts.h include/iomapdirty.h \
 user/programs.h user/snapshot.h
include/buckets.h:
include/iomapdirty.h:
user/fsinfo.h:
user/json.h:
user/report.h:
user/engine.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
user/snapshot.h:
