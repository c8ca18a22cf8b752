// kubeon-gpu: the KubeOn GPU sharing optimizer's command line (cli/main_command.h).
#include "cli/main_command.h"

int main(int argc, char** argv) { return kubeon::cli::Main(argc, argv, {}); }
