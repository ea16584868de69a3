.output-ppc64le/facts.o: user/facts.c user/facts.h user/trial.h
user/facts.h:
user/trial.h:
