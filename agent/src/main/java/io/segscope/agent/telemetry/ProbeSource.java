package io.segscope.agent.telemetry;

import io.segscope.probes.ProbeAttachment;
import io.segscope.probes.ProbeException;
import io.segscope.probes.ProbeReading;
import io.segscope.probes.ProbeSession;
import io.segscope.probes.bcc.ProgramStats;
import java.util.List;

/**
 * What {@link TelemetryService} needs of the probes: a {@link ProbeSession} in the agent
 * ({@link #of}), recorded readings in tests of the read logic.
 */
public interface ProbeSource {
  ProbeReading read() throws ProbeException;

  void forget(long netns, int ifindex) throws ProbeException;

  void setGenericXdpPresent(boolean present) throws ProbeException;

  List<ProbeAttachment> attachments();

  List<ProgramStats> programStats();

  /** The mode a path runs in, "" when it is not measured. */
  String mode(String path);

  static ProbeSource of(ProbeSession s) {
    return new ProbeSource() {
      @Override
      public ProbeReading read() throws ProbeException {
        return s.read();
      }

      @Override
      public void forget(long netns, int ifindex) throws ProbeException {
        s.forget(netns, ifindex);
      }

      @Override
      public void setGenericXdpPresent(boolean present) throws ProbeException {
        s.setGenericXdpPresent(present);
      }

      @Override
      public List<ProbeAttachment> attachments() {
        return s.attachments();
      }

      @Override
      public List<ProgramStats> programStats() {
        return s.programStats();
      }

      @Override
      public String mode(String path) {
        return s.mode(path);
      }
    };
  }
}
