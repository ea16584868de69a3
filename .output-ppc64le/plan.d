.output-ppc64le/plan.o: user/plan.c user/plan.h user/facts.h \
 include/iomapdirty.h user/programs.h
user/plan.h:
user/facts.h:
include/iomapdirty.h:
user/programs.h:
