.output-ppc64le/session.o: user/session.c user/exitcodes.h user/report.h \
 user/engine.h user/plan.h user/facts.h include/iomapdirty.h \
 user/programs.h user/snapshot.h user/session.h user/fsinfo.h
user/exitcodes.h:
user/report.h:
user/engine.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
user/snapshot.h:
user/session.h:
user/fsinfo.h:
