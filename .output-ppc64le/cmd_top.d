.output-ppc64le/cmd_top.o: user/cmd_top.c user/commands.h user/session.h \
 user/engine.h user/plan.h user/facts.h include/iomapdirty.h \
 user/programs.h user/snapshot.h user/fsinfo.h user/report.h \
 user/exitcodes.h user/sampler.h user/top_view.h
user/commands.h:
user/session.h:
user/engine.h:
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
user/snapshot.h:
user/fsinfo.h:
user/report.h:
user/exitcodes.h:
user/sampler.h:
user/top_view.h:
