package io.segscope.agent.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.Model.OptionSpec;

/**
 * Every flag a command accepts is documented where a user looks for it: the README's command table
 * names each {@code doctor} and {@code report} flag, and its flag table has a row for each
 * {@code run} flag. Hidden flags (kept for compatibility) and picocli's --help/--version are exempt
 * from the command table, not from the flag table when they have a row.
 */
class FlagsDocumentedTest {

  private static final Path README = Path.of("..", "README.md");

  /** The visible long names of a subcommand's options, --help and --version left out. */
  private static List<String> flags(String command) {
    CommandLine sub = SegscopeCommand.commandLine().getSubcommands().get(command);
    assertThat(sub).as("subcommand %s", command).isNotNull();
    List<String> names = new ArrayList<>();
    for (OptionSpec o : sub.getCommandSpec().options()) {
      if (o.hidden() || o.usageHelp() || o.versionHelp()) {
        continue;
      }
      names.add(o.longestName());
    }
    assertThat(names).as("flags of %s", command).isNotEmpty();
    return names;
  }

  /** The cell of README's command table that spells {@code segscope COMMAND [...]}. */
  private static String usageCell(String readme, String command) {
    Matcher m = Pattern.compile("\\| `segscope " + command + " ([^`]*)` \\|").matcher(readme);
    assertThat(m.find()).as("README's command table has a row for segscope %s", command).isTrue();
    return m.group(1);
  }

  @Test
  void everyDoctorAndReportFlagIsInTheCommandTable() throws Exception {
    String readme = Files.readString(README);
    for (String command : List.of("doctor", "report")) {
      String cell = usageCell(readme, command);
      for (String flag : flags(command)) {
        assertThat(cell).as("README's usage of segscope %s names %s", command, flag).contains("[" + flag);
      }
    }
  }

  @Test
  void everyRunFlagHasARowInTheFlagTable() throws Exception {
    String readme = Files.readString(README);
    for (String flag : flags("run")) {
      assertThat(readme).as("README's run flag table has a row for %s", flag)
          .containsPattern("(?m)^\\| `" + Pattern.quote(flag) + "[ `]");
    }
  }

  @Test
  void everyFlagReportSharesWithRunIsListedAsShared() throws Exception {
    String readme = Files.readString(README);
    int at = readme.indexOf("`run` flags (`report` takes ");
    assertThat(at).as("README says which run flags report takes").isNotNegative();
    String sentence = readme.substring(at, readme.indexOf("):", at));
    List<String> run = flags("run");
    for (String flag : flags("report")) {
      if (run.contains(flag)) {
        assertThat(sentence).as("the shared-flags sentence names %s", flag).contains("`" + flag + "`");
      }
    }
  }
}
