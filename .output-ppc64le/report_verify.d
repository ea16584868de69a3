.output-ppc64le/report_verify.o: user/report_verify.c user/fsinfo.h \
 user/json.h user/report.h user/engine.h user/plan.h user/facts.h \
 include/iomapdirty.h user/programs.h user/snapshot.h
user/fsinfo.h:
user/json.h:
user/report.h:
user/engine.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
user/snapshot.h:
