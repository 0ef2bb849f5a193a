package io.segscope.bench.kernel;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** /proc/PID/fdinfo texts of the agent as recorded on the development machine (kernel 6.18). */
class BpfFdinfoTest {
  static final String MAP = """
      pos:\t0
      flags:\t02000002
      mnt_id:\t17
      ino:\t1038
      map_type:\t1
      key_size:\t16
      value_size:\t2608
      max_entries:\t4096
      map_flags:\t0x1
      map_extra:\t0x0
      memlock:\t66496
      map_id:\t2047
      frozen:\t0
      """;
  static final String PROG = """
      pos:\t0
      flags:\t02000002
      mnt_id:\t17
      ino:\t1038
      prog_type:\t26
      prog_jited:\t1
      prog_tag:\t21586ab496028cbb
      memlock:\t4096
      prog_id:\t2123
      run_time_ns:\t123456
      run_cnt:\t789
      recursion_misses:\t0
      verified_insns:\t150
      """;
  static final String LINK = """
      pos:\t0
      flags:\t02000000
      mnt_id:\t17
      ino:\t1038
      link_type:\traw_tracepoint
      link_id:\t743
      prog_tag:\t21586ab496028cbb
      prog_id:\t2123
      tp_name:\tnet_dev_queue
      cookie:\t0
      """;

  @Test
  void programsLinksAndMapsAreToldApartAndOtherFdsSkipped() {
    BpfFdinfo.Objects o =
        BpfFdinfo.parse(List.of(MAP, PROG, LINK, "pos:\t0\nflags:\t02\nmnt_id:\t20\nino:\t7\n", PROG));
    assertThat(o.maps()).containsExactly(new BpfFdinfo.BpfMap(2047, 1, 16, 2608, 4096, 1, 66496));
    assertThat(o.programs()).as("two fds of one program: listed once")
        .containsExactly(new BpfFdinfo.Program(2123, 26, 123456, 789));
    assertThat(o.links()).containsExactly(new BpfFdinfo.Link(743, 2123, "raw_tracepoint", "net_dev_queue"));
    assertThat(o.memlockBytes()).isEqualTo(66496);
    assertThat(o.program(2123).runCount()).isEqualTo(789);
    assertThat(o.program(1)).isNull();
  }

  @Test
  void aProgramWithoutStatisticsCountsZero() {
    BpfFdinfo.Objects o = BpfFdinfo.parse(List.of("prog_type:\t5\nprog_id:\t9\n"));
    assertThat(o.programs()).containsExactly(new BpfFdinfo.Program(9, 5, 0, 0));
  }

  @Test
  void aBrokenNumberIsNamedWithItsText() {
    assertThatThrownBy(() -> BpfFdinfo.parse(List.of("map_type:\t1\nmap_id:\tx\n")))
        .hasMessageContaining("parse fdinfo `map_type:").hasMessageContaining("map_id:");
  }
}
