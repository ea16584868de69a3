.output-ppc64le/top_view.o: user/top_view.c user/json.h user/report.h \
 user/engine.h user/plan.h user/facts.h include/iomapdirty.h \
 user/programs.h user/snapshot.h user/top_view.h user/fsinfo.h
user/json.h:
user/report.h:
user/engine.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
user/snapshot.h:
user/top_view.h:
user/fsinfo.h:
